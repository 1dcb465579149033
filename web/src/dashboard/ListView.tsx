import type { ReactNode } from 'react';
import { LoadFailed, Spinner } from '../components/ui.tsx';

/**
 * What a loaded list shows: why it could not be loaded (with Try again), a spinner until it comes, what to say
 * when it is empty, or the items as `children` lays them out.
 */
export function ListView<T>(props: {
  list: { items: T[] | null; error: string | null; reload: () => void };
  /** What could not be loaded ("Your tokens"). */
  what: string;
  /** The spinner's words ("Loading tokens…"). */
  loading: string;
  empty: ReactNode;
  /** Inside a card, the failure gets the card's padding. */
  inCard?: boolean;
  children: (items: T[]) => ReactNode;
}) {
  const { items, error, reload } = props.list;
  const failed = error && <LoadFailed what={props.what} reason={error} onRetry={reload} />;
  return (
    <>
      {failed && (props.inCard ? <div className="card-body">{failed}</div> : failed)}
      {!items && !error && <Spinner label={props.loading} />}
      {items && items.length === 0 && props.empty}
      {items && items.length > 0 && props.children(items)}
    </>
  );
}
