import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import superjson from 'superjson';
import { expect } from 'vitest';
import type { AppRouter } from '../../src/router/root.ts';
import type { TestApp } from '../helpers/app.ts';
import { type PasswordUser, signIn } from '../oauth/support.ts';

export type Client = ReturnType<typeof createTRPCClient<AppRouter>>;

/** The real typed client (httpBatchLink + superjson) against the listening service, as the web app uses it. */
export function trpcClient(siteUrl: string, auth: { cookie?: string; csrf?: string; bearer?: string } = {}): Client {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${siteUrl}/trpc`,
        transformer: superjson,
        headers: () => {
          const headers: Record<string, string> = {};
          if (auth.cookie) headers.cookie = auth.cookie;
          if (auth.csrf) headers['x-csrf-token'] = auth.csrf;
          if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
          return headers;
        },
      }),
    ],
  });
}

export interface SignedIn {
  client: Client;
  cookie: string;
  csrf: string;
}

/** Signs in through /login, reads the CSRF token from session.current, and returns a client sending both. */
export async function signInClient(t: TestApp & { siteUrl: string }, user: PasswordUser): Promise<SignedIn> {
  const cookie = await signIn(t.http, user, '/app/settings/developer');
  const session = await trpcClient(t.siteUrl, { cookie }).session.current.query();
  expect(session?.user.email).toBe(user.email);
  const csrf = session?.csrfToken ?? '';
  return { client: trpcClient(t.siteUrl, { cookie, csrf }), cookie, csrf };
}

/** The failure of a tRPC call, for assertions on its status and message. */
export async function failure(call: Promise<unknown>): Promise<{ status: number | undefined; message: string }> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(TRPCClientError);
    const clientError = error as TRPCClientError<AppRouter>;
    return { status: clientError.data?.httpStatus, message: clientError.message };
  }
  throw new Error('expected the call to fail, but it succeeded');
}
