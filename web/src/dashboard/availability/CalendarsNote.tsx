import type { RouterOutputs as Outputs } from '../../api.ts';
import { formatDateTime } from '../../time.ts';
import { followLink } from '../router.ts';

type HostConnection = NonNullable<Outputs['availability']['get']['hosts']>[number]['connections'][number];

/** What the greyed time knows of the host's connected calendars, as GET /availability reports them. */
export function CalendarsNote({ connections, timeZone }: { connections: HostConnection[]; timeZone: string }) {
  const link = (
    <a href="/app/calendars" onClick={(event) => followLink(event, '/app/calendars')}>
      {connections.length === 0 ? 'Connect your calendars' : 'Manage calendars'}
    </a>
  );
  if (connections.length === 0) {
    return (
      <p className="week-note" data-testid="calendars-note">
        Only bookings made here are greyed. {link} to grey out your other meetings too.
      </p>
    );
  }
  const count = (status: HostConnection['status']) => connections.filter((connection) => connection.status === status).length;
  const oldest = connections.map((connection) => connection.lastSyncedAt).filter((at): at is string => at !== null).sort()[0];
  const calendars = connections.length === 1 ? '1 connected calendar' : `${connections.length} connected calendars`;
  return (
    <p className="week-note" data-testid="calendars-note">
      Includes {calendars}
      {oldest ? `, as synced ${connections.length === 1 ? '' : 'at the earliest '}${formatDateTime(oldest, timeZone)}` : ''}.
      {count('error') > 0 && ` ${count('error')} failed its last sync; its last good busy times still count.`}
      {count('pending') > 0 && ` ${count('pending')} is still syncing for the first time.`} {link}
    </p>
  );
}
