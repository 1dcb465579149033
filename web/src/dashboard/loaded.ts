import { type DependencyList, useCallback, useEffect, useState } from 'react';
import { errorMessage } from '../api.ts';
import { useSession } from './session.ts';

export interface Loaded<V> {
  /** What was loaded; null until it has (and again while a different question, other `deps`, is asked). */
  value: V | null;
  /** Why the last call failed, as a sentence to show. */
  error: string | null;
  /** Asks again (Try again, Refresh); what is shown stays until the answer comes. */
  reload: () => void;
  /** Changes what was loaded, after an action changed it on the server. */
  update: (change: (value: V | null) => V | null) => void;
  /** Reports a failed follow-up call (a next page) as this load's error. */
  fail: (error: unknown) => void;
}

/**
 * Loads what a dashboard page shows. `deps` name everything `fetchValue` asks with; when they change, the old
 * answer is dropped (the spinner shows) and an answer to an older question is ignored. `refreshKey`, when it
 * changes, asks again as `reload` does. A call answered 401 sends the user to sign in.
 */
export function useLoaded<V>(fetchValue: () => Promise<V>, deps: DependencyList, refreshKey = 0): Loaded<V> {
  const { onSessionLost } = useSession();
  const question = JSON.stringify(deps);
  const [state, setState] = useState<{ question: string; value: V | null; error: string | null }>({ question, value: null, error: null });
  const [attempt, setAttempt] = useState(0);
  const current = state.question === question ? state : { question, value: null, error: null };

  const fail = useCallback(
    (error: unknown) => {
      onSessionLost(error);
      setState((previous) => ({ question, value: previous.question === question ? previous.value : null, error: errorMessage(error) }));
    },
    [question, onSessionLost],
  );

  // Only a new question, `reload` and `refreshKey` start a call (`fetchValue` is a new function at every render).
  useEffect(() => {
    let superseded = false;
    setState((previous) => {
      if (previous.question !== question) return { question, value: null, error: null };
      return previous.error === null ? previous : { ...previous, error: null };
    });
    fetchValue().then(
      (value) => {
        if (!superseded) setState({ question, value, error: null });
      },
      (error: unknown) => {
        if (!superseded) fail(error);
      },
    );
    return () => {
      superseded = true;
    };
  }, [question, attempt, refreshKey, fail]);

  const update = useCallback(
    (change: (value: V | null) => V | null) =>
      setState((previous) => (previous.question === question ? { ...previous, value: change(previous.value) } : previous)),
    [question],
  );
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { value: current.value, error: current.error, reload, update, fail };
}

/** One page of a list as the API answers it; `nextCursor` is where the next page starts, when there is one. */
interface ListPage<T> {
  data: T[];
  nextCursor?: string | null;
}

export interface LoadedList<T> {
  /** The items loaded so far; null until the first page has come. */
  items: T[] | null;
  error: string | null;
  reload: () => void;
  /** Loads the next page and adds it at the end; null when there is none. */
  more: (() => void) | null;
  /** Adds a new item at the start. */
  prepend: (item: T) => void;
  /** Replaces the item of the same id, or adds it at the end. */
  put: (item: T) => void;
  remove: (id: string) => void;
}

/** A list (or the pages of one) that a dashboard page loads, with the changes its actions make to it. See `useLoaded`. */
export function useLoadedList<T extends { id: string }>(
  fetchPage: (cursor?: string) => Promise<ListPage<T> | T[]>,
  deps: DependencyList,
  refreshKey = 0,
): LoadedList<T> {
  const asPage = (answer: ListPage<T> | T[]) => (Array.isArray(answer) ? { data: answer, nextCursor: null } : answer);
  const loaded = useLoaded(async () => asPage(await fetchPage()), deps, refreshKey);
  const { update, fail } = loaded;
  const nextCursor = loaded.value?.nextCursor;
  const change = (items: (current: T[]) => T[]) =>
    update((page) => ({ data: items(page?.data ?? []), nextCursor: page?.nextCursor ?? null }));
  return {
    items: loaded.value?.data ?? null,
    error: loaded.error,
    reload: loaded.reload,
    more: nextCursor
      ? () =>
          fetchPage(nextCursor).then(
            (answer) => {
              const next = asPage(answer);
              update((page) => ({ data: [...(page?.data ?? []), ...next.data], nextCursor: next.nextCursor }));
            },
            fail,
          )
      : null,
    prepend: (item) => change((items) => [item, ...items]),
    put: (item) => change((items) => (items.some((other) => other.id === item.id) ? items.map((other) => (other.id === item.id ? item : other)) : [...items, item])),
    remove: (id) => change((items) => items.filter((other) => other.id !== id)),
  };
}
