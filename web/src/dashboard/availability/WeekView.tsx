import { useMemo, useState } from 'react';
import { api } from '../../api.ts';
import { SelectField } from '../../components/fields.tsx';
import { ErrorNotice } from '../../components/ui.tsx';
import { addDays, dateKey, type LocalDate, localDateOf, startOfLocalDate } from '../../time.ts';
import type { EventTypeItem } from '../format.ts';
import { formatDate } from '../../time.ts';
import { useLoaded } from '../loaded.ts';
import { followLink } from '../router.ts';
import { useSession } from '../session.ts';
import { ExplainPanel, type ExplainTarget } from './ExplainPanel.tsx';
import { CalendarsNote } from './CalendarsNote.tsx';
import { WeekGrid } from './WeekGrid.tsx';
import { mondayOf, type WeekSchedule, weekWindow } from './week.ts';

/**
 * The host's week: working hours, busy time greyed (bookings and connected calendars), the times an event type
 * offers, and, for any time clicked, why it is offered or not. `refreshKey` changes when the schedule is saved.
 */
export function WeekView({ schedule, refreshKey }: { schedule: WeekSchedule; refreshKey: number }) {
  const { user } = useSession();
  const timeZone = user.timezone;
  const today = localDateOf(Date.now(), timeZone);
  const [monday, setMonday] = useState<LocalDate>(() => mondayOf(today));
  const [chosenType, setChosenType] = useState('');
  const [target, setTarget] = useState<ExplainTarget | null>(null);
  const range = useMemo(() => weekWindow(monday, timeZone), [monday, timeZone]);

  const eventTypes = useLoaded(async () => (await api.eventTypes.list.query()).data, []);
  const eventType = pickEventType(eventTypes.value, chosenType);
  const busy = useLoaded(() => api.availability.busy.query(range), [range], refreshKey);
  const slots = useLoaded(
    async () => (eventType ? api.availability.get.query({ eventTypeId: eventType.id, ...range }) : null),
    [eventType?.id, range],
    refreshKey,
  );
  const explanation = useLoaded(
    async () => (eventType && target ? api.availability.explain.query({ eventTypeId: eventType.id, start: new Date(target.instant).toISOString() }) : null),
    [eventType?.id, target?.instant],
    refreshKey,
  );
  const myConnections = slots.value?.hosts?.find((host) => host.hostId === user.id)?.connections;

  const showWeek = (next: LocalDate) => {
    setMonday(next);
    setTarget(null);
  };
  const weekLabel = `${formatDate(new Date(startOfLocalDate(monday, timeZone)).toISOString(), timeZone)} – ${formatDate(new Date(startOfLocalDate(addDays(monday, 6), timeZone)).toISOString(), timeZone)}`;

  return (
    <section className="card week-card" aria-labelledby="week-title">
      <div className="card-header">
        <div>
          <h2 id="week-title">Your week</h2>
          <p>
            Grey is busy: bookings made here and your connected calendars. Blue marks the times an event type offers.
            Click any time to see why it is offered or not.
          </p>
        </div>
      </div>
      <div className="card-body week-controls">
        <SelectField
          label="Event type"
          value={eventType?.id ?? ''}
          disabled={!eventTypes.value || eventTypes.value.length === 0}
          onChange={(event) => {
            setChosenType(event.target.value);
            setTarget(null);
          }}
        >
          {(eventTypes.value ?? []).length === 0 && <option value="">No event types yet</option>}
          {(eventTypes.value ?? []).map((item) => (
            <option key={item.id} value={item.id}>
              {item.name} ({item.durationsMin[0]} min){item.active ? '' : ', inactive'}
            </option>
          ))}
        </SelectField>
        {/* biome-ignore lint/a11y/useSemanticElements: a labelled group of buttons */}
        <div className="week-view-nav" role="group" aria-label="Week">
          <button type="button" className="btn btn-small" onClick={() => showWeek(addDays(monday, -7))}>
            Previous<span className="visually-hidden"> week</span>
          </button>
          <button type="button" className="btn btn-small" onClick={() => showWeek(mondayOf(today))} disabled={dateKey(monday) === dateKey(mondayOf(today))}>
            This week
          </button>
          <button type="button" className="btn btn-small" onClick={() => showWeek(addDays(monday, 7))}>
            Next<span className="visually-hidden"> week</span>
          </button>
          <strong className="week-label">{weekLabel}</strong>
        </div>
      </div>
      <div className="card-body">
        {eventTypes.error && <ErrorNotice>Your event types could not be loaded. {eventTypes.error}</ErrorNotice>}
        {busy.error && <ErrorNotice>Your busy times could not be loaded. {busy.error}</ErrorNotice>}
        {slots.error && <ErrorNotice>The offered times could not be loaded. {slots.error}</ErrorNotice>}
        {eventTypes.value?.length === 0 && (
          <p className="notice notice-info">
            Create an event type to see which times it offers and why.{' '}
            <a href="/app/event-types" onClick={(event) => followLink(event, '/app/event-types')}>
              Go to event types
            </a>
          </p>
        )}
        {myConnections && <CalendarsNote connections={myConnections} timeZone={timeZone} />}
        <div className="week-layout">
          <WeekGrid
            monday={monday}
            today={today}
            timeZone={timeZone}
            schedule={schedule}
            busy={busy.value?.data ?? null}
            offered={slots.value?.data ?? []}
            durationMin={eventType?.durationsMin[0]}
            chosen={target?.instant ?? null}
            onChoose={eventType ? (instant) => setTarget({ instant, eventTypeName: eventType.name }) : undefined}
          />
          <ExplainPanel target={target} explanation={explanation.value} error={explanation.error} userId={user.id} timeZone={timeZone} />
        </div>
      </div>
    </section>
  );
}

/** The event type chosen, or the first active one (else the first) until one is. */
function pickEventType(items: EventTypeItem[] | null, chosen: string): EventTypeItem | undefined {
  if (!items) return undefined;
  return items.find((item) => item.id === chosen) ?? items.find((item) => item.active) ?? items[0];
}
