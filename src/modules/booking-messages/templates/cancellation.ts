import { seriesCancellation } from './series-endings.ts';
import { canceledBy, meetingWithHost, type Template, type TemplateInput, when, whoseCanceledRequest } from './template.ts';

/** Which request was canceled, in the recipient's words ("your request for Intro call"). */
function canceledRequest(input: TemplateInput): string {
  const { facts } = input;
  const byHost = facts.canceled?.by === 'host';
  return `${whoseCanceledRequest(input)} request for ${byHost || input.audience === 'host' ? facts.eventTypeName : meetingWithHost(facts)}`;
}

/**
 * A canceled booking: who canceled and why; the invitee's side gets the invitation's cancellation. A canceled
 * request had no invitation, so it has none to withdraw. A series canceled at once says it once (series-endings.ts).
 */
export const cancellation: Template = (input) => {
  const { facts } = input;
  if (facts.series) return seriesCancellation(input, facts.series);
  const reason = facts.canceled?.reason ? [{ label: 'Reason', value: facts.canceled.reason }] : [];
  const host = input.audience === 'host';
  const meeting = host ? `${facts.eventTypeName} with ${facts.invitee.name}` : meetingWithHost(facts);
  const request = facts.approval === 'pending';
  return {
    subject: `Canceled: ${meeting}`,
    heading: request ? 'A request was canceled' : 'A meeting was canceled',
    paragraphs: [`${canceledBy(input)} ${request ? canceledRequest(input) : meeting}.`, ...(host ? ['Its time is free again.'] : [])],
    details: [{ label: 'Was', value: when(input) }, ...reason],
    action: null,
  };
};
