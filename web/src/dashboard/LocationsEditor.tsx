import { SelectField, TextField } from '../components/fields.tsx';
import { type EventTypeLocation, KIND_NAMES, type LocationKind } from '../locations.ts';

/** One place as typed: its kind and, for the host's kinds, the address, number or link. */
export type LocationDraft = { kind: LocationKind; text: string };

const MAX_LOCATIONS = 10;

/** What each of the host's kinds asks for. */
const DETAIL_FIELDS: Partial<Record<LocationKind, { label: string; hint: string; type: 'text' | 'tel' | 'url' }>> = {
  in_person: { label: 'Address', hint: 'Where to meet; shown on the booking page.', type: 'text' },
  phone: { label: 'Your phone number', hint: 'Shown to the invitee once booked.', type: 'tel' },
  link: { label: 'Meeting link', hint: 'An https:// link, shown to the invitee once booked.', type: 'url' },
};

export function locationDraftOf(location: EventTypeLocation): LocationDraft {
  switch (location.kind) {
    case 'in_person':
      return { kind: location.kind, text: location.address };
    case 'phone':
      return { kind: location.kind, text: location.number };
    case 'link':
      return { kind: location.kind, text: location.url };
    default:
      return { kind: location.kind, text: '' };
  }
}

/** The places as the API takes them (the server checks them; its message is shown). */
export function locationsOf(drafts: LocationDraft[]): EventTypeLocation[] {
  return drafts.map(({ kind, text }): EventTypeLocation => {
    switch (kind) {
      case 'in_person':
        return { kind, address: text.trim() };
      case 'phone':
        return { kind, number: text.trim() };
      case 'link':
        return { kind, url: text.trim() };
      default:
        return { kind };
    }
  });
}

/** The event type's places: up to ten; with several, the invitee chooses one when booking. */
export function LocationsEditor({ locations, onChange }: { locations: LocationDraft[]; onChange: (locations: LocationDraft[]) => void }) {
  const change = (index: number, patch: Partial<LocationDraft>) => onChange(locations.map((location, at) => (at === index ? { ...location, ...patch } : location)));
  return (
    <fieldset className="form-panel" aria-label="Where the meeting happens">
      <legend>Where the meeting happens</legend>
      <p className="muted">
        {locations.length === 0
          ? 'No place yet: invitees book a time only.'
          : locations.length === 1
            ? 'Every booking takes this place.'
            : 'The invitee chooses one of these places when booking.'}
      </p>
      {locations.length > 0 && (
        <div className="location-list">
          {locations.map((location, index) => {
            const detail = DETAIL_FIELDS[location.kind];
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
              <div className="location-row" key={index} data-testid="location">
                <div className="location-fields">
                  <SelectField label="Kind" value={location.kind} onChange={(e) => change(index, { kind: e.target.value as LocationKind, text: '' })}>
                    {Object.entries(KIND_NAMES).map(([value, label]) => (
                      <option key={value} value={value}>
                        {label}
                      </option>
                    ))}
                  </SelectField>
                  {detail ? (
                    <TextField label={detail.label} hint={detail.hint} type={detail.type} value={location.text} onChange={(e) => change(index, { text: e.target.value })} />
                  ) : (
                    <p className="muted location-note">
                      {location.kind === 'invitee_phone' ? 'The invitee gives their number when booking.' : 'The invitee types a place when booking.'}
                    </p>
                  )}
                </div>
                <button type="button" className="btn btn-small location-remove" onClick={() => onChange(locations.filter((_, at) => at !== index))}>
                  Remove
                </button>
              </div>
            );
          })}
        </div>
      )}
      {locations.length < MAX_LOCATIONS && (
        <div className="btn-row">
          <button type="button" className="btn btn-small" onClick={() => onChange([...locations, { kind: 'in_person', text: '' }])}>
            Add a place
          </button>
        </div>
      )}
    </fieldset>
  );
}
