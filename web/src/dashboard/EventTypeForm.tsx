import { type FormEvent, useState } from 'react';
import { api, errorMessage } from '../api.ts';
import { SelectField, TextField } from '../components/fields.tsx';
import { ErrorNotice } from '../components/ui.tsx';
import type { EventTypeItem } from './format.ts';
import { type LocationDraft, LocationsEditor, locationDraftOf, locationsOf } from './LocationsEditor.tsx';
import { titleCase } from './format.ts';
import { useSession } from './session.ts';

const KINDS = ['one_on_one', 'group', 'round_robin', 'collective'] as const;
type Kind = (typeof KINDS)[number];
const REMINDER_AUDIENCES = { invitee: 'the invitee and guests', host: 'me (the host)', both: 'everyone' } as const;
type ReminderDraft = { offsetMin: string; to: keyof typeof REMINDER_AUDIENCES };
const MAX_REMINDERS = 3;

interface Draft {
  name: string;
  slug: string;
  kind: Kind;
  durations: string;
  bufferBeforeMin: string;
  bufferAfterMin: string;
  color: string;
  secret: boolean;
  active: boolean;
  minimumNoticeMin: string;
  slotIntervalMin: string;
  seatsPerSlot: string;
  window: 'none' | 'rolling' | 'range';
  windowDays: string;
  windowStart: string;
  windowEnd: string;
  perDay: string;
  perWeek: string;
  perMonth: string;
  cancelNoticeMin: string;
  rescheduleNoticeMin: string;
  requiresConfirmation: boolean;
  recurrenceMaxCount: string;
  reminders: ReminderDraft[];
  description: string;
  locations: LocationDraft[];
  notifications: boolean;
}

/** The settings typed as text. */
type TextKey = { [K in keyof Draft]: string extends Draft[K] ? K : never }[keyof Draft];

const shown = (value: number | null | undefined): string => (value === null || value === undefined ? '' : String(value));

function draftOf(existing?: EventTypeItem): Draft {
  const window = existing?.bookingWindow ?? null;
  return {
    name: existing?.name ?? '',
    slug: existing?.slug ?? '',
    kind: existing?.kind ?? 'one_on_one',
    durations: existing ? existing.durationsMin.join(', ') : '30',
    bufferBeforeMin: String(existing?.bufferBeforeMin ?? 0),
    bufferAfterMin: String(existing?.bufferAfterMin ?? 0),
    color: existing?.color ?? '#2563eb',
    secret: existing?.secret ?? false,
    active: existing?.active ?? true,
    minimumNoticeMin: String(existing?.minimumNoticeMin ?? 0),
    slotIntervalMin: shown(existing?.slotIntervalMin),
    seatsPerSlot: shown(existing?.seatsPerSlot),
    window: window?.type ?? 'none',
    windowDays: window?.type === 'rolling' ? String(window.days) : '30',
    windowStart: window?.type === 'range' ? window.start : '',
    windowEnd: window?.type === 'range' ? window.end : '',
    perDay: shown(existing?.limits?.perDay),
    perWeek: shown(existing?.limits?.perWeek),
    perMonth: shown(existing?.limits?.perMonth),
    cancelNoticeMin: String(existing?.cancelNoticeMin ?? 0),
    rescheduleNoticeMin: String(existing?.rescheduleNoticeMin ?? 0),
    requiresConfirmation: existing?.requiresConfirmation ?? false,
    recurrenceMaxCount: shown(existing?.recurrence?.maxCount),
    reminders: (existing?.reminders ?? [{ offsetMin: 1440, to: 'invitee' as const }]).map((reminder) => ({ offsetMin: String(reminder.offsetMin), to: reminder.to })),
    description: existing?.description ?? '',
    locations: (existing?.locations ?? []).map(locationDraftOf),
    notifications: existing?.notifications ?? true,
  };
}

const whole = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));
const optionalWhole = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

function bookingWindowOf(draft: Draft) {
  if (draft.window === 'rolling') return { type: 'rolling' as const, days: whole(draft.windowDays) };
  if (draft.window === 'range') return { type: 'range' as const, start: draft.windowStart, end: draft.windowEnd };
  return null;
}

type Limits = { perDay?: number; perWeek?: number; perMonth?: number };

/** The limits typed; none at all is null, as the API returns it. */
function limitsOf(draft: Draft): Limits | null {
  const limits: Limits = {};
  for (const key of ['perDay', 'perWeek', 'perMonth'] as const) {
    const value = optionalWhole(draft[key]);
    if (value !== undefined) limits[key] = value;
  }
  return Object.keys(limits).length > 0 ? limits : null;
}

/** Every setting the API can write; the server's validation is the one that counts (its message is shown). */
function fieldsOf(draft: Draft, existing?: EventTypeItem) {
  const durationsMin = draft.durations
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  const slotInterval = draft.slotIntervalMin.trim().toLowerCase();
  const recurrence = optionalWhole(draft.recurrenceMaxCount);
  return {
    name: draft.name,
    slug: draft.slug.trim() === '' ? undefined : draft.slug.trim(),
    durationsMin,
    bufferBeforeMin: whole(draft.bufferBeforeMin),
    bufferAfterMin: whole(draft.bufferAfterMin),
    color: draft.color,
    secret: draft.secret,
    active: draft.active,
    minimumNoticeMin: whole(draft.minimumNoticeMin),
    // Blank (or "none") means a slot every booking duration.
    slotIntervalMin: slotInterval === '' || slotInterval === 'none' ? null : Number(slotInterval),
    seatsPerSlot: (existing?.kind ?? draft.kind) === 'group' ? optionalWhole(draft.seatsPerSlot) : undefined,
    bookingWindow: bookingWindowOf(draft),
    limits: limitsOf(draft),
    cancelNoticeMin: whole(draft.cancelNoticeMin),
    rescheduleNoticeMin: whole(draft.rescheduleNoticeMin),
    requiresConfirmation: draft.requiresConfirmation,
    recurrence: recurrence === undefined ? null : { maxCount: recurrence },
    reminders: draft.reminders.map((reminder) => ({ offsetMin: whole(reminder.offsetMin), to: reminder.to })),
    // Blank is no description, as the API returns it.
    description: draft.description.trim() === '' ? null : draft.description.trim(),
    locations: locationsOf(draft.locations),
    notifications: draft.notifications,
  };
}

/** An edit sends only what changed: re-sending `secret: true` must not look like turning it on. */
function changedOnly<T extends object>(fields: T, existing: EventTypeItem): Partial<T> {
  const same = (key: string, value: unknown) => JSON.stringify((existing as Record<string, unknown>)[key]) === JSON.stringify(value);
  return Object.fromEntries(Object.entries(fields).filter(([key, value]) => !same(key, value))) as Partial<T>;
}

export function EventTypeForm(props: { existing?: EventTypeItem; onSaved: (eventType: EventTypeItem) => void; onCancel: () => void }) {
  const { existing } = props;
  const { onSessionLost } = useSession();
  const [draft, setDraft] = useState<Draft>(() => draftOf(existing));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (change: Partial<Draft>) => setDraft((previous) => ({ ...previous, ...change }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const fields = fieldsOf(draft, existing);
      const saved = existing
        ? await api.eventTypes.update.mutate({ id: existing.id, ...changedOnly(fields, existing) })
        : await api.eventTypes.create.mutate({ ...fields, kind: draft.kind });
      props.onSaved(saved);
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
      setBusy(false);
    }
  };

  const text = (key: TextKey, label: string, hint?: string, inputMode?: 'numeric') => (
    <TextField label={label} hint={hint} inputMode={inputMode} value={draft[key]} onChange={(e) => set({ [key]: e.target.value })} />
  );

  return (
    <form className={`form${existing ? " event-type-form" : ""}`} onSubmit={(event) => void submit(event)} aria-label={existing ? `Edit ${existing.name}` : 'New event type'}>
      <div className="form-grid">
        {text('name', 'Name')}
        {text('slug', 'Link name (slug)', existing ? 'The last part of the booking link.' : 'Leave blank to derive it from the name.')}
        <SelectField
          label="Kind"
          hint={existing && 'The kind cannot change; create another event type instead.'}
          value={draft.kind}
          disabled={Boolean(existing)}
          onChange={(e) => set({ kind: e.target.value as Kind })}
        >
          {KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {titleCase(kind)}
            </option>
          ))}
        </SelectField>
        {text('durations', 'Durations (minutes)', 'Comma-separated, 5 to 720; the first is the default.')}
        {text('bufferBeforeMin', 'Buffer before (minutes)', undefined, 'numeric')}
        {text('bufferAfterMin', 'Buffer after (minutes)', undefined, 'numeric')}
        {text('minimumNoticeMin', 'Minimum notice (minutes)', 'How soon before a slot it can still be booked.', 'numeric')}
        {text('slotIntervalMin', 'Slot interval (minutes)', 'Minutes between slot starts; blank for every booking duration.')}
        {(existing?.kind ?? draft.kind) === 'group' && text('seatsPerSlot', 'Seats per slot', 'Invitees per slot, 2 to 1000.', 'numeric')}
        <TextField label="Color" type="color" className="color-input" value={draft.color} onChange={(e) => set({ color: e.target.value })} />
      </div>
      <TextField
        multiline
        label={
          <>
            Description <span className="muted">(optional)</span>
          </>
        }
        hint="Shown on the booking page as plain text; line breaks are kept."
        rows={3}
        maxLength={2000}
        value={draft.description}
        onChange={(e) => set({ description: e.target.value })}
      />
      <LocationsEditor locations={draft.locations} onChange={(locations) => set({ locations })} />
      <fieldset className="form-grid" aria-label="Booking rules">
        <legend className="label">Booking rules</legend>
        <SelectField label="Booking window" hint="Which dates can be booked, in each host's time zone." value={draft.window} onChange={(e) => set({ window: e.target.value as Draft['window'] })}>
          <option value="none">Any date</option>
          <option value="rolling">The next days</option>
          <option value="range">A date range</option>
        </SelectField>
        {draft.window === 'rolling' && text('windowDays', 'Days ahead', 'Today included: 1 is today only.', 'numeric')}
        {draft.window === 'range' && <TextField label="First date" type="date" value={draft.windowStart} onChange={(e) => set({ windowStart: e.target.value })} />}
        {draft.window === 'range' && <TextField label="Last date" type="date" value={draft.windowEnd} onChange={(e) => set({ windowEnd: e.target.value })} />}
        {text('perDay', 'Most bookings a day', 'Per host; blank for no limit.', 'numeric')}
        {text('perWeek', 'Most bookings a week', 'Monday to Sunday; blank for no limit.', 'numeric')}
        {text('perMonth', 'Most bookings a month', 'Blank for no limit.', 'numeric')}
        {text('cancelNoticeMin', 'Cancel notice (minutes)', 'Invitees may cancel themselves until this long before the start.', 'numeric')}
        {text('rescheduleNoticeMin', 'Reschedule notice (minutes)', 'Invitees may reschedule themselves until this long before the start.', 'numeric')}
        {text('recurrenceMaxCount', 'Most occurrences of a series', '2 to 52; blank: single bookings only.', 'numeric')}
      </fieldset>
      <label className="choice">
        <input type="checkbox" checked={draft.requiresConfirmation} onChange={(e) => set({ requiresConfirmation: e.target.checked })} />
        <span className="choice-text">Requires confirmation (you confirm or decline each booking; its time is held meanwhile)</span>
      </label>
      <label className="choice">
        <input type="checkbox" checked={draft.notifications} onChange={(e) => set({ notifications: e.target.checked })} />
        <span className="choice-text">E-mail notifications (confirmations, updates, cancellations and reminders to the invitee, guests and you)</span>
      </label>
      <RemindersEditor reminders={draft.reminders} onChange={(reminders) => set({ reminders })} />
      <label className="choice">
        <input type="checkbox" checked={draft.active} onChange={(e) => set({ active: e.target.checked })} />
        <span className="choice-text">Active (offers slots and takes bookings)</span>
      </label>
      <label className="choice">
        <input type="checkbox" checked={draft.secret} onChange={(e) => set({ secret: e.target.checked })} />
        <span className="choice-text">Secret (bookable only through a private link)</span>
      </label>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <div className="btn-row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : existing ? 'Save changes' : 'Create event type'}
        </button>
        <button type="button" className="btn" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The event type's e-mail reminders: up to three, each minutes before the start and to whom. */
function RemindersEditor({ reminders, onChange }: { reminders: ReminderDraft[]; onChange: (reminders: ReminderDraft[]) => void }) {
  const change = (index: number, patch: Partial<ReminderDraft>) => onChange(reminders.map((reminder, at) => (at === index ? { ...reminder, ...patch } : reminder)));
  return (
    <fieldset className="form-panel" aria-label="E-mail reminders">
      <legend>E-mail reminders</legend>
      {reminders.length === 0 && <p className="muted">No reminders.</p>}
      {reminders.map((reminder, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
        <div className="filters" key={index} data-testid="reminder">
          <TextField label="Minutes before" inputMode="numeric" value={reminder.offsetMin} onChange={(e) => change(index, { offsetMin: e.target.value })} />
          <SelectField label="To" value={reminder.to} onChange={(e) => change(index, { to: e.target.value as ReminderDraft['to'] })}>
            {Object.entries(REMINDER_AUDIENCES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectField>
          <button type="button" className="btn btn-small" onClick={() => onChange(reminders.filter((_, at) => at !== index))}>
            Remove
          </button>
        </div>
      ))}
      {reminders.length < MAX_REMINDERS && (
        <div className="btn-row">
          <button type="button" className="btn btn-small" onClick={() => onChange([...reminders, { offsetMin: '60', to: 'invitee' }])}>
            Add a reminder
          </button>
        </div>
      )}
    </fieldset>
  );
}
