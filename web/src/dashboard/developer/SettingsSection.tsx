import { type ReactNode, useState } from 'react';
import { errorMessage } from '../../api.ts';
import { ErrorNotice, SecretReveal, useFocusAfterRender } from '../../components/ui.tsx';
import { useSession } from '../session.ts';

/** A secret shown once (a new token, a client or signing secret), with what SecretReveal says about it. */
export interface Secret {
  title: string;
  warning: string;
  fields: { label: string; value: string }[];
}

type Panel = { kind: 'closed' } | { kind: 'form' } | { kind: 'secret'; secret: Secret };

export type SettingsSectionState = ReturnType<typeof useSettingsSection>;

/**
 * The state of one section of the developer settings: its open panel (the form that creates, or a secret shown
 * once; closing it brings focus back to the button that opens the form) and the error of its last action.
 */
export function useSettingsSection() {
  const { onSessionLost } = useSession();
  const [panel, setPanel] = useState<Panel>({ kind: 'closed' });
  const [error, setError] = useState<string | null>(null);
  const [newButtonRef, focusNewButton] = useFocusAfterRender<HTMLButtonElement>();
  return {
    panel,
    error,
    newButtonRef,
    openForm: () => {
      setError(null);
      setPanel({ kind: 'form' });
    },
    reveal: (secret: Secret) => setPanel({ kind: 'secret', secret }),
    close: () => {
      setPanel({ kind: 'closed' });
      focusNewButton();
    },
    /** Runs an action of a listed item; if it fails, says so as `failure` followed by the reason. */
    act: async (failure: string, action: () => Promise<void>) => {
      setError(null);
      try {
        await action();
      } catch (caught) {
        onSessionLost(caught);
        setError(`${failure} ${errorMessage(caught)}`);
      }
    },
  };
}

/**
 * One card of the developer settings: its title and what it is for, the button that opens its form (`create`),
 * the open panel, the error of the last action, then its list (`children`).
 */
export function SettingsSection(props: {
  /** Names the card's heading id: `${name}-title`. */
  name: string;
  title: string;
  intro: ReactNode;
  state: SettingsSectionState;
  create?: { label: string; disabled: boolean; form: ReactNode };
  children: ReactNode;
}) {
  const { state, create } = props;
  const { panel } = state;
  return (
    <section className="card" aria-labelledby={`${props.name}-title`}>
      <div className="card-header">
        <div>
          <h2 id={`${props.name}-title`}>{props.title}</h2>
          <p>{props.intro}</p>
        </div>
        {create && panel.kind === 'closed' && (
          <button type="button" ref={state.newButtonRef} className="btn btn-primary" disabled={create.disabled} onClick={state.openForm}>
            {create.label}
          </button>
        )}
      </div>
      {panel.kind !== 'closed' && (
        <div className="card-body">
          {panel.kind === 'secret' ? <SecretReveal {...panel.secret} onDone={state.close} /> : create?.form}
        </div>
      )}
      {state.error && (
        <div className="card-body">
          <ErrorNotice>{state.error}</ErrorNotice>
        </div>
      )}
      {props.children}
    </section>
  );
}
