import { seriesConfirmation } from './series-confirmation.ts';
import { inviteeRows, manageAction, meetingWithHost, type Template, when, whereRow } from './template.ts';

/**
 * A new booking, or a request the host confirmed: the invitee's and each guest's confirmation (with the invitation
 * attached), the host's notice; a series' one confirmation (booked, or its requests confirmed at once) tells of
 * every occurrence.
 */
export const confirmation: Template = (input) => {
  const { facts } = input;
  if (facts.series) return seriesConfirmation(input, facts.series);
  const confirmed = facts.approval === 'confirmed';
  if (input.audience === 'host') {
    return {
      subject: confirmed ? `Confirmed: ${facts.invitee.name}, ${facts.eventTypeName}` : `New booking: ${facts.invitee.name}, ${facts.eventTypeName}`,
      heading: confirmed ? 'You confirmed a booking' : 'You have a new booking',
      paragraphs: [
        confirmed
          ? `You confirmed ${facts.invitee.name}’s request for ${facts.eventTypeName}: they have the invitation now.`
          : `${facts.invitee.name} booked ${facts.eventTypeName} with you.`,
      ],
      details: [{ label: 'When', value: when(input) }, ...whereRow(input), ...inviteeRows(facts)],
      action: null,
    };
  }
  let opening: string;
  if (input.audience === 'invitee') {
    opening = confirmed
      ? `Hello ${facts.invitee.name}, ${facts.host.name} confirmed your ${facts.eventTypeName}.`
      : `Hello ${facts.invitee.name}, your ${facts.eventTypeName} with ${facts.host.name} is booked.`;
  } else {
    opening = confirmed
      ? `${facts.host.name} confirmed ${facts.invitee.name}’s ${facts.eventTypeName}, to which you are invited.`
      : `${facts.invitee.name} invited you to ${facts.eventTypeName} with ${facts.host.name}.`;
  }
  return {
    subject: `Confirmed: ${meetingWithHost(facts)}`,
    heading: confirmed ? 'Your meeting is confirmed' : 'Your meeting is booked',
    paragraphs: [opening, 'The invitation is attached: open it to add the meeting to your calendar.'],
    details: [{ label: 'When', value: when(input) }, ...whereRow(input), { label: 'Host', value: facts.host.name }],
    action: manageAction(input),
  };
};
