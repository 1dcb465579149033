import { formatMeetingTime } from '../message-time.ts';
import { confirmAction, inviteeRows, manageAction, type MailContent, meetingWithHost, type Template, type TemplateInput, when, whereRow, whoseRequest } from './template.ts';

function before(input: TemplateInput): { label: string; value: string }[] {
  const previous = input.facts.previous;
  return previous ? [{ label: 'Before', value: formatMeetingTime(previous.startAt, previous.endAt, input.zone) }] : [];
}

/**
 * A rescheduled booking: the new time and the old one; the invitation attached replaces the earlier one. A request
 * that moved still waits for the host, and carries no invitation.
 */
export const update: Template = (input) => {
  const { facts } = input;
  if (facts.approval === 'pending') return movedRequest(input);
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

function movedRequest(input: TemplateInput): MailContent {
  const { facts } = input;
  if (input.audience === 'host') {
    return {
      subject: `Request moved: ${facts.invitee.name}, ${facts.eventTypeName}`,
      heading: 'A request has moved',
      paragraphs: [`${facts.invitee.name}’s request for ${facts.eventTypeName} has a new time. It still waits for your confirmation.`],
      details: [{ label: 'Now', value: when(input) }, ...before(input), ...whereRow(input), ...inviteeRows(facts)],
      action: confirmAction(input),
    };
  }
  const whose = whoseRequest(input);
  return {
    subject: `Request moved: ${meetingWithHost(facts)}`,
    heading: 'The request has a new time',
    paragraphs: [
      `${whose[0]!.toUpperCase()}${whose.slice(1)} request for ${facts.eventTypeName} with ${facts.host.name} has moved.`,
      `${facts.host.name} still has to confirm it: the invitation for your calendar comes with the confirmation.`,
    ],
    details: [{ label: 'Now', value: when(input) }, ...before(input), ...whereRow(input), { label: 'Host', value: facts.host.name }],
    action: manageAction(input),
  };
}
