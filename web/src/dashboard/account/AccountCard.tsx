import type { ReactNode } from 'react';
import { ErrorNotice } from '../../components/ui.tsx';

/** One card of the account settings: heading, what it is for, its content, and the outcome of its last action. */
export function AccountCard(props: { name: string; title: string; intro: ReactNode; done?: string | null; error?: string | null; children: ReactNode }) {
  const titleId = `account-${props.name}-title`;
  return (
    <section className="card" aria-labelledby={titleId} data-testid={`account-${props.name}`}>
      <div className="card-header">
        <div>
          <h2 id={titleId}>{props.title}</h2>
          <p>{props.intro}</p>
        </div>
      </div>
      <div className="card-body">{props.children}</div>
      {(props.done || props.error) && (
        <div className="card-body">
          {props.done && (
            <div className="notice notice-info" role="status">
              {props.done}
            </div>
          )}
          {props.error && <ErrorNotice>{props.error}</ErrorNotice>}
        </div>
      )}
    </section>
  );
}
