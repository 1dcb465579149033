import { formatLeadTime } from '../message-time.ts';
import { manageAction, meetingWithHost, type Template, when, whereRow } from './template.ts';

/** A reminder before the meeting, at one of the event type's offsets. */
export const reminder: Template = (input) => {
  const { facts } = input;
  const soon = formatLeadTime(input.offsetMin ?? 0);
  if (input.audience === 'host') {
    const meeting = `${facts.eventTypeName} with ${facts.invitee.name}`;
    return {
      subject: `Reminder: ${meeting} ${soon}`,
      heading: 'Your meeting is coming up',
      paragraphs: [`${meeting} starts ${soon}.`],
      details: [{ label: 'When', value: when(input) }, ...whereRow(input), { label: 'Invitee', value: `${facts.invitee.name} <${facts.invitee.email}>` }],
      action: null,
    };
  }
  return {
    subject: `Reminder: ${meetingWithHost(facts)} ${soon}`,
    heading: 'Your meeting is coming up',
    paragraphs: [`${meetingWithHost(facts)} starts ${soon}.`],
    details: [{ label: 'When', value: when(input) }, ...whereRow(input), { label: 'Host', value: facts.host.name }],
    action: manageAction(input),
  };
};
