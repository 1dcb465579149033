import { type FormEvent, useState } from 'react';
import { api, errorMessage } from '../api.ts';
import { SelectField, TextField } from '../components/fields.tsx';
import { ErrorNotice } from '../components/ui.tsx';
import type { EventTypeItem } from './format.ts';
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
  /** Write-only settings: the API never shows them, so an edit leaves them blank, meaning "keep". */
  minimumNoticeMin: string;
  slotIntervalMin: string;
  seatsPerSlot: string;
  reminders: ReminderDraft[];
}

/** The settings typed as text. */
type TextKey = { [K in keyof Draft]: string extends Draft[K] ? K : never }[keyof Draft];

function draftOf(existing?: EventTypeItem): Draft {
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
    minimumNoticeMin: existing ? '' : '0',
    slotIntervalMin: '',
    seatsPerSlot: '',
    reminders: (existing?.reminders ?? [{ offsetMin: 1440, to: 'invitee' as const }]).map((reminder) => ({ offsetMin: String(reminder.offsetMin), to: reminder.to })),
  };
}

const whole = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));
const optionalWhole = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

/** Every setting the API can write; the server's validation is the one that counts (its message is shown). */
function fieldsOf(draft: Draft, existing?: EventTypeItem) {
  const durationsMin = draft.durations
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  const slotInterval = draft.slotIntervalMin.trim().toLowerCase();
  return {
    name: draft.name,
    slug: draft.slug.trim() === '' ? undefined : draft.slug.trim(),
    durationsMin,
    bufferBeforeMin: whole(draft.bufferBeforeMin),
    bufferAfterMin: whole(draft.bufferAfterMin),
    color: draft.color,
    secret: draft.secret,
    active: draft.active,
    minimumNoticeMin: optionalWhole(draft.minimumNoticeMin),
    // Blank on creation means "every booking duration" (null); blank on an edit keeps what is set.
    slotIntervalMin: slotInterval === '' ? (existing ? undefined : null) : slotInterval === 'none' ? null : Number(slotInterval),
    seatsPerSlot: (existing?.kind ?? draft.kind) === 'group' ? optionalWhole(draft.seatsPerSlot) : undefined,
    reminders: draft.reminders.map((reminder) => ({ offsetMin: whole(reminder.offsetMin), to: reminder.to })),
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
  const keepHint = existing ? ' The API does not show the current value: leave blank to keep it.' : '';

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
        {text('minimumNoticeMin', 'Minimum notice (minutes)', `How soon before a slot it can still be booked.${keepHint}`, 'numeric')}
        {text('slotIntervalMin', 'Slot interval (minutes)', `Minutes between slot starts; "none" for every booking duration.${keepHint}`)}
        {(existing?.kind ?? draft.kind) === 'group' && text('seatsPerSlot', 'Seats per slot', `Invitees per slot, 2 to 1000.${keepHint}`, 'numeric')}
        <TextField label="Color" type="color" className="color-input" value={draft.color} onChange={(e) => set({ color: e.target.value })} />
      </div>
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
