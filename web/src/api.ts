import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import superjson from 'superjson';
import type { AppRouter } from '../../src/router/root.ts';

/** What each procedure answers: the one place the app learns the service's types (it imports nothing else of src/). */
export type RouterOutputs = inferRouterOutputs<AppRouter>;

/**
 * The typed client of the service's own API at /trpc (same origin, so the session cookie rides along).
 * Calls made with the session cookie must echo the session's CSRF token; the app learns it from
 * `session.current` and every later call carries it.
 */
let csrfToken: string | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export const api = createTRPCClient<AppRouter>({
  links: [
    httpBatchLink({
      url: '/trpc',
      transformer: superjson,
      headers: () => (csrfToken ? { 'x-csrf-token': csrfToken } : {}),
    }),
  ],
});

/** The HTTP status of a failed call, when the server answered. */
export function errorStatus(error: unknown): number | undefined {
  return error instanceof TRPCClientError ? (error.data as { httpStatus?: number } | undefined)?.httpStatus : undefined;
}

/** A sentence to show a person for a failed call. */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const status = errorStatus(error);
    if (status === undefined) return 'The service could not be reached. Check your connection and try again.';
    if (status >= 500) return 'Something went wrong on our side. Please try again in a moment.';
    return error.message;
  }
  return 'Something went wrong. Please try again.';
}

/**
 * What the server said about each field it refused (a 400's `details`), by the field's name, as a sentence; empty
 * for any other failure.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof TRPCClientError)) return {};
  const details = (error.shape as { details?: { path: (string | number)[]; message: string }[] } | undefined)?.details ?? [];
  const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);
  return Object.fromEntries(details.filter((detail) => detail.path.length > 0).map((detail) => [String(detail.path[0]), sentence(detail.message)]));
}

/** The address of the sign-in page that comes back here afterwards. */
export function signInUrl(): string {
  return `/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`;
}

/**
 * A booking series' 409: each occurrence that cannot be booked, with why (its reasons joined), in the series'
 * order; empty for any other failure.
 */
export function occurrenceProblems(error: unknown): { startAt: string; why: string }[] {
  if (!(error instanceof TRPCClientError)) return [];
  const details = (error.shape as { details?: { startAt?: string; message: string }[] } | undefined)?.details ?? [];
  const byStart = new Map<string, string[]>();
  for (const detail of details) {
    if (!detail.startAt) continue;
    const prefix = `${detail.startAt}: `;
    const why = detail.message.startsWith(prefix) ? detail.message.slice(prefix.length) : detail.message;
    byStart.set(detail.startAt, [...(byStart.get(detail.startAt) ?? []), why]);
  }
  return [...byStart].map(([startAt, reasons]) => ({ startAt, why: reasons.join(' ') }));
}
