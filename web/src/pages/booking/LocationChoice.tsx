import { TextField } from '../../components/fields.tsx';
import { type LocationOption, optionWords } from '../../locations.ts';

/** The invitee's pick: which option (-1: none yet) and what they typed for it (their number or place). */
export type LocationPick = { index: number; text: string };

const TEXT_FIELDS = {
  invitee_phone: { label: 'Your phone number', type: 'tel', autoComplete: 'tel', missing: 'Enter the number to call you at.' },
  ask_invitee: { label: 'Where would you like to meet?', type: 'text', autoComplete: 'off', missing: 'Say where you would like to meet.' },
} as const;

const textFieldOf = (option: LocationOption | undefined) =>
  option?.kind === 'invitee_phone' || option?.kind === 'ask_invitee' ? TEXT_FIELDS[option.kind] : undefined;

/** What keeps the pick from being sent: no option chosen among several, or the number or place left empty. */
export function pickProblems(options: readonly LocationOption[], pick: LocationPick): { choice?: string; text?: string } {
  if (options.length === 0) return {};
  const option = options[pick.index];
  if (!option) return { choice: 'Choose where to meet.' };
  const field = textFieldOf(option);
  return field && !pick.text.trim() ? { text: field.missing } : {};
}

/** The booking request's `location`: the kind, the address among several, or what the invitee typed. */
export function locationRequest(options: readonly LocationOption[], pick: LocationPick) {
  const option = options[pick.index];
  if (!option) return {};
  if (textFieldOf(option)) return { location: { kind: option.kind, value: pick.text.trim() } };
  const severalAddresses = option.kind === 'in_person' && options.filter((other) => other.kind === 'in_person').length > 1;
  return { location: severalAddresses && option.address ? { kind: option.kind, value: option.address } : { kind: option.kind } };
}

/** Where to meet: a choice among several places, and the invitee's number or place when the chosen one asks for it. */
export function LocationChoice(props: {
  options: readonly LocationOption[];
  hostName: string;
  pick: LocationPick;
  onPick: (pick: LocationPick) => void;
  errors: { choice?: string | undefined; text?: string | undefined };
}) {
  const { options, pick } = props;
  const field = textFieldOf(options[pick.index]);
  if (options.length === 0) return null;
  return (
    <>
      {options.length > 1 && (
        <fieldset className="location-choice" aria-describedby={props.errors.choice ? 'location-choice-error' : undefined}>
          <legend className="label">Where to meet</legend>
          <div className="choice-list">
            {options.map((option, index) => {
              const words = optionWords(option, props.hostName);
              return (
                <label className="choice" key={`${option.kind}:${option.address ?? ''}`}>
                  <input type="radio" name="location" checked={pick.index === index} onChange={() => props.onPick({ index, text: '' })} />
                  <span className="choice-text">
                    <strong>{words.title}</strong>
                    <span className="keep-lines break">{words.detail}</span>
                  </span>
                </label>
              );
            })}
          </div>
          {props.errors.choice && (
            <span className="field-error" id="location-choice-error">
              {props.errors.choice}
            </span>
          )}
        </fieldset>
      )}
      {field && (
        <TextField
          label={field.label}
          type={field.type}
          autoComplete={field.autoComplete}
          error={props.errors.text}
          value={pick.text}
          maxLength={field.type === 'tel' ? 40 : 500}
          required
          onChange={(event) => props.onPick({ ...pick, text: event.target.value })}
        />
      )}
    </>
  );
}
