import { formatMeetingTime } from '../message-time.ts';
import { inviteeRows, manageAction, meetingWithHost, type Template, type TemplateInput, when, whereRow } from './template.ts';

function before(input: TemplateInput): { label: string; value: string }[] {
  const previous = input.facts.previous;
  return previous ? [{ label: 'Before', value: formatMeetingTime(previous.startAt, previous.endAt, input.zone) }] : [];
}

/** A rescheduled booking: the new time and the old one; the invitation attached replaces the earlier one. */
export const update: Template = (input) => {
  const { facts } = input;
  if (input.audience === 'host') {
    return {
      subject: `Rescheduled: ${facts.invitee.name}, ${facts.eventTypeName}`,
      heading: 'A booking has moved',
      paragraphs: [`${facts.eventTypeName} with ${facts.invitee.name} has a new time.`],
      details: [{ label: 'Now', value: when(input) }, ...before(input), ...whereRow(input), ...inviteeRows(facts)],
      action: null,
    };
  }
  return {
    subject: `Updated: ${meetingWithHost(facts)}`,
    heading: 'Your meeting has a new time',
    paragraphs: [
      `${facts.eventTypeName} with ${facts.host.name} has moved.`,
      'The updated invitation is attached: your calendar moves the meeting when you open it.',
    ],
    details: [{ label: 'Now', value: when(input) }, ...before(input), ...whereRow(input), { label: 'Host', value: facts.host.name }],
    action: manageAction(input),
  };
};
