import { SelectField } from '../../components/fields.tsx';

export type Repeat = { frequency: 'none' } | { frequency: 'daily' | 'weekly' | 'monthly'; interval: number; count: number };

const UNITS = { daily: ['day', 'days'], weekly: ['week', 'weeks'], monthly: ['month', 'months'] } as const;

/** "Repeat": how often and how many times, up to the event type's longest series. */
export function RepeatFields(props: { value: Repeat; maxCount: number; onChange: (repeat: Repeat) => void }) {
  const { value, maxCount } = props;
  const counts = Array.from({ length: maxCount - 1 }, (_, i) => i + 2);
  return (
    <fieldset className="repeat-fields" data-testid="repeat">
      <legend className="label">Repeat</legend>
      <div className="filters">
        <SelectField
          label="How often"
          value={value.frequency}
          onChange={(event) => {
            const frequency = event.target.value as Repeat['frequency'];
            props.onChange(frequency === 'none' ? { frequency } : { frequency, interval: 'interval' in value ? value.interval : 1, count: 'count' in value ? value.count : Math.min(4, maxCount) });
          }}
        >
          <option value="none">Does not repeat</option>
          <option value="daily">Daily</option>
          <option value="weekly">Weekly</option>
          <option value="monthly">Monthly</option>
        </SelectField>
        {value.frequency !== 'none' && (
          <>
            <SelectField label="Every" value={value.interval} onChange={(event) => props.onChange({ ...value, interval: Number(event.target.value) })}>
              {[1, 2, 3, 4].map((interval) => (
                <option key={interval} value={interval}>
                  {interval === 1 ? UNITS[value.frequency][0] : `${interval} ${UNITS[value.frequency][1]}`}
                </option>
              ))}
            </SelectField>
            <SelectField label="Times" value={value.count} onChange={(event) => props.onChange({ ...value, count: Number(event.target.value) })}>
              {counts.map((count) => (
                <option key={count} value={count}>
                  {count} times
                </option>
              ))}
            </SelectField>
          </>
        )}
      </div>
      {value.frequency !== 'none' && (
        <p className="hint">Every time is booked at the same time of day, or none is if one of them is not free.</p>
      )}
    </fieldset>
  );
}
