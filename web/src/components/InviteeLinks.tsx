import type { RouterOutputs } from '../api.ts';

export type InviteeLinksData = RouterOutputs['publicBooking']['managed']['links'];

/** "Add to calendar": the .ics file, Google Calendar and Outlook. */
export function AddToCalendar({ links }: { links: InviteeLinksData }) {
  return (
    <div className="invitee-links" data-testid="add-to-calendar">
      <p className="label">Add to calendar</p>
      <div className="btn-row calendar-buttons">
        <a className="btn btn-small" href={links.ics} download="booking.ics" data-testid="ics-link">
          Download .ics
        </a>
        <a className="btn btn-small" href={links.google} target="_blank" rel="noopener noreferrer">
          Google Calendar
        </a>
        <a className="btn btn-small" href={links.outlook} target="_blank" rel="noopener noreferrer">
          Outlook
        </a>
      </div>
    </div>
  );
}

/** The private manage link, with a word on keeping it private (it is the only key to the booking). */
export function ManageLink({ href }: { href: string }) {
  return (
    <p className="manage-note">
      Need to change something?{' '}
      <a href={href} target="_blank" rel="noopener" data-testid="manage-link">
        Cancel or reschedule
      </a>
      . Keep this link to yourself: anyone who has it can change your booking.
    </p>
  );
}
