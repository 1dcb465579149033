import { api } from '../../api.ts';
import { SettingsSection, useSettingsSection } from '../developer/SettingsSection.tsx';
import { ListView } from '../ListView.tsx';
import { useLoadedList } from '../loaded.ts';
import { ConnectCalendarForm } from './ConnectCalendarForm.tsx';
import { ConnectionItem } from './ConnectionItem.tsx';
import { useConnectionPolling } from './useConnectionPolling.ts';

/** /app/calendars: the calendars whose busy times keep bookings off the host's other meetings. */
export function CalendarsPage() {
  const section = useSettingsSection();
  const connections = useLoadedList(async () => (await api.calendars.list.query()).data, []);
  const polling = useConnectionPolling(connections.items, connections.reload);

  return (
    <>
      <div className="page-header">
        <h1>Calendars</h1>
        <p>
          Connect the calendars your other meetings live in. Their busy times are kept out of your availability, so
          nobody can book you over them; a CalDAV calendar can also receive the bookings made here.
        </p>
      </div>
      <SettingsSection
        name="calendars"
        title="Connected calendars"
        intro="Each is synced in the background every few minutes. Event titles and details are never stored or shown: only when you are busy."
        state={section}
        create={{
          label: 'Connect a calendar',
          disabled: false,
          form: (
            <ConnectCalendarForm
              onCancel={section.close}
              onConnected={(connection) => {
                connections.put(connection);
                section.close();
              }}
            />
          ),
        }}
      >
        <ListView
          list={connections}
          what="Your calendars"
          loading="Loading your calendars…"
          empty={<p className="empty" data-testid="calendars-empty">No calendar is connected yet. Connect one to keep your availability clear of your other meetings.</p>}
          inCard
        >
          {(items) => (
            <ul className="item-list" aria-label="Your connected calendars">
              {items.map((connection) => (
                <ConnectionItem
                  key={connection.id}
                  connection={connection}
                  syncing={polling.syncing(connection.id)}
                  onChanged={connections.put}
                  onSyncRequested={polling.watch}
                  onRemoved={() => connections.remove(connection.id)}
                />
              ))}
            </ul>
          )}
        </ListView>
      </SettingsSection>
    </>
  );
}
