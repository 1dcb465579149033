import { Spinner } from '../../components/ui.tsx';
import { formatDateTime, formatTime } from '../../time.ts';
import { type Explanation, reasonText } from './reason-text.ts';

/** What the panel explains: the time clicked, for which event type. */
export interface ExplainTarget {
  instant: number;
  eventTypeName: string;
}

/** Why the chosen time is offered or not, each reason in plain words. */
export function ExplainPanel(props: {
  target: ExplainTarget | null;
  explanation: Explanation | null;
  error: string | null;
  userId: string;
  timeZone: string;
}) {
  const { target, explanation, timeZone } = props;
  const context = { userId: props.userId, formatWhen: (iso: string) => formatDateTime(iso, timeZone) };
  return (
    <section className="explain-panel" aria-labelledby="explain-title" aria-live="polite" data-testid="explain-panel">
      <h3 id="explain-title">{target ? formatDateTime(new Date(target.instant).toISOString(), timeZone) : 'Why is a time offered?'}</h3>
      {!target && <p className="muted">Click a time in the week to see whether it is offered, and if not, every reason why.</p>}
      {target && props.error && <p className="notice notice-error">This time could not be explained. {props.error}</p>}
      {target && !props.error && !explanation && <Spinner label="Checking this time…" />}
      {target && explanation && (
        <>
          <p className="muted">
            {target.eventTypeName}, {formatTime(explanation.start, timeZone)} – {formatTime(explanation.end, timeZone)}
          </p>
          {explanation.available ? (
            <p className="explain-verdict explain-offered">Offered: this time can be booked.</p>
          ) : (
            <p className="explain-verdict explain-not-offered">Not offered, because:</p>
          )}
          {explanation.reasons.length > 0 && (
            <ul className="explain-reasons">
              {explanation.reasons.map((reason, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: reasons have no identity but their place
                <li key={index}>{reasonText(reason, context)}</li>
              ))}
            </ul>
          )}
          {explanation.hosts.length > 1 && (
            <p className="muted">
              {explanation.hosts.filter((host) => host.available).length} of {explanation.hosts.length} hosts are free at this time.
            </p>
          )}
        </>
      )}
    </section>
  );
}
