import { type FormEvent, useState } from 'react';
import { api, errorMessage } from '../api.ts';
import { TextField } from '../components/fields.tsx';
import { ErrorNotice, LoadFailed, Spinner } from '../components/ui.tsx';
import { formatLocalDate, parseDateInput } from '../time.ts';
import type { ScheduleData } from './format.ts';
import { titleCase } from './format.ts';
import { useLoaded } from './loaded.ts';
import { useSession } from './session.ts';
import { WeekView } from './availability/WeekView.tsx';

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
type Interval = { start: string; end: string };
type Weekly = ScheduleData['weekly'];
type Override = ScheduleData['overrides'][number];

/** Working hours and date overrides, edited as local wall-clock times in the host's own zone. */
export function AvailabilityPage() {
  const { onSessionLost } = useSession();
  const schedule = useLoaded(() => api.schedule.get.query(), []);
  // The host's changes since the schedule was loaded or saved.
  const [edited, setEdited] = useState<Pick<ScheduleData, 'weekly' | 'overrides'> | null>(null);
  const weekly = (edited ?? schedule.value)?.weekly ?? null;
  const overrides = (edited ?? schedule.value)?.overrides ?? [];
  const setWeekly = (next: Weekly) => setEdited({ weekly: next, overrides });
  const setOverrides = (next: Override[]) => weekly && setEdited({ weekly, overrides: next });
  const [saveError, setSaveError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  // Counts saves, so the week view asks again for the times the new hours offer.
  const [saves, setSaves] = useState(0);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!weekly) return;
    setBusy(true);
    setSaveError(null);
    setStatus('');
    try {
      const saved = await api.schedule.replace.mutate({ weekly, overrides });
      schedule.update(() => saved);
      setEdited(null);
      setSaves((n) => n + 1);
      setStatus('Saved');
    } catch (error) {
      onSessionLost(error);
      setSaveError(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <div className="page-header">
        <h1>Availability</h1>
        <p>
          Your working hours and the dates that differ. Bookable slots come from these hours, minus what is already booked
          and what your connected calendars say is busy.
          {schedule.value && <> Times are in your time zone, <strong>{schedule.value.timezone}</strong>.</>}
        </p>
      </div>
      {schedule.error && <LoadFailed what="Your schedule" reason={schedule.error} onRetry={schedule.reload} />}
      {!weekly && !schedule.error && <Spinner label="Loading your schedule…" />}
      {schedule.value && <WeekView schedule={schedule.value} refreshKey={saves} />}
      {weekly && (
        <form className="stack" onSubmit={(event) => void save(event)}>
          <section className="card" aria-labelledby="weekly-title">
            <div className="card-body">
              <h2 id="weekly-title">Weekly hours</h2>
              {Object.values(weekly).every((intervals) => intervals.length === 0) && (
                <p className="notice notice-warning">You have no working hours, so nobody can book you. Add hours to at least one day.</p>
              )}
              <div className="days-editor">
                {WEEKDAYS.map((day) => (
                  <IntervalsEditor
                    key={day}
                    label={titleCase(day)}
                    intervals={weekly[day]}
                    emptyText="Unavailable"
                    onChange={(intervals) => setWeekly({ ...weekly, [day]: intervals })}
                  />
                ))}
              </div>
            </div>
          </section>
          <OverridesEditor overrides={overrides} onChange={setOverrides} />
          {saveError && <ErrorNotice>{saveError}</ErrorNotice>}
          <div className="btn-row">
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save availability'}
            </button>
            <span className="copy-status" role="status">
              {status}
            </span>
          </div>
        </form>
      )}
    </>
  );
}

function IntervalsEditor(props: { label: string; intervals: Interval[]; emptyText: string; onChange: (intervals: Interval[]) => void }) {
  const { label, intervals, onChange } = props;
  const update = (index: number, change: Partial<Interval>) => onChange(intervals.map((item, i) => (i === index ? { ...item, ...change } : item)));
  const last = intervals[intervals.length - 1];
  const next: Interval = last ? { start: last.end === '24:00' ? '23:00' : last.end, end: '24:00' } : { start: '09:00', end: '17:00' };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a labelled group of time inputs
    <div className="day-editor" role="group" aria-label={label}>
      <div className="day-editor-label">{label}</div>
      <div className="day-editor-intervals">
        {intervals.length === 0 && <span className="muted">{props.emptyText}</span>}
        {intervals.map((interval, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: intervals have no identity but their place
          <div className="interval" key={index}>
            <input type="time" className="input" aria-label={`${label} from`} value={interval.start} onChange={(e) => update(index, { start: e.target.value })} />
            <span aria-hidden="true">–</span>
            {/* A time input cannot show 24:00 (end of day): it shows 23:59, and 23:59 is stored as 24:00. */}
            <input
              type="time"
              className="input"
              aria-label={`${label} until`}
              value={interval.end === '24:00' ? '23:59' : interval.end}
              onChange={(e) => update(index, { end: e.target.value === '23:59' ? '24:00' : e.target.value })}
            />
            <button type="button" className="btn btn-small" aria-label={`Remove ${label} ${interval.start}–${interval.end}`} onClick={() => onChange(intervals.filter((_, i) => i !== index))}>
              Remove
            </button>
          </div>
        ))}
      </div>
      <button type="button" className="btn btn-small" aria-label={`Add hours on ${label}`} onClick={() => onChange([...intervals, next])}>
        Add hours
      </button>
    </div>
  );
}

/** An override's date with its weekday ("Wed, Dec 24, 2031"), in the browser's locale. */
function overrideLabel(date: string): string {
  const local = parseDateInput(date);
  return local ? formatLocalDate(local) : date;
}

function OverridesEditor({ overrides, onChange }: { overrides: Override[]; onChange: (overrides: Override[]) => void }) {
  const [date, setDate] = useState('');
  const add = () => {
    if (!date || overrides.some((item) => item.date === date)) return;
    onChange([...overrides, { date, intervals: [] }].sort((a, b) => a.date.localeCompare(b.date)));
    setDate('');
  };
  return (
    <section className="card" aria-labelledby="overrides-title">
      <div className="card-body">
        <h2 id="overrides-title">Date overrides</h2>
        <p className="muted">A day off, or different hours on one date. An override without hours means unavailable all day.</p>
        {overrides.length === 0 && <p className="empty">No date overrides.</p>}
        <div className="days-editor">
          {overrides.map((override) => (
            <div key={override.date} className="override">
              <IntervalsEditor
                label={overrideLabel(override.date)}
                intervals={override.intervals}
                emptyText="Unavailable all day"
                onChange={(intervals) => onChange(overrides.map((item) => (item.date === override.date ? { ...item, intervals } : item)))}
              />
              <button type="button" className="btn btn-small btn-danger" onClick={() => onChange(overrides.filter((item) => item.date !== override.date))}>
                Remove override<span className="visually-hidden"> {overrideLabel(override.date)}</span>
              </button>
            </div>
          ))}
        </div>
        <div className="inline-add">
          <TextField label="Date" type="date" value={date} onChange={(e) => setDate(e.target.value)} />
          <button type="button" className="btn" onClick={add} disabled={!date}>
            Add override
          </button>
        </div>
      </div>
    </section>
  );
}
