import { inviteeRows, manageAction, meetingWithHost, type Template, when, whereRow } from './template.ts';

/** A new booking: the invitee's and each guest's confirmation (with the invitation attached), the host's notice. */
export const confirmation: Template = (input) => {
  const { facts } = input;
  if (input.audience === 'host') {
    return {
      subject: `New booking: ${facts.invitee.name}, ${facts.eventTypeName}`,
      heading: 'You have a new booking',
      paragraphs: [`${facts.invitee.name} booked ${facts.eventTypeName} with you.`],
      details: [{ label: 'When', value: when(input) }, ...whereRow(input), ...inviteeRows(facts)],
      action: null,
    };
  }
  const opening =
    input.audience === 'invitee'
      ? `Hello ${facts.invitee.name}, your ${facts.eventTypeName} with ${facts.host.name} is booked.`
      : `${facts.invitee.name} invited you to ${facts.eventTypeName} with ${facts.host.name}.`;
  return {
    subject: `Confirmed: ${meetingWithHost(facts)}`,
    heading: 'Your meeting is booked',
    paragraphs: [opening, 'The invitation is attached: open it to add the meeting to your calendar.'],
    details: [{ label: 'When', value: when(input) }, ...whereRow(input), { label: 'Host', value: facts.host.name }],
    action: manageAction(input),
  };
};
