import { createContext, useContext } from 'react';
import type { RouterOutputs } from '../api.ts';

export type SessionUser = NonNullable<RouterOutputs['session']['current']>['user'];

export interface DashboardSession {
  user: SessionUser;
  csrfToken: string;
  /** A call answered 401: the session ended (signed out elsewhere, expired); sign in again. */
  onSessionLost: (error: unknown) => void;
  /** The account settings changed the user's profile or e-mail address: show the new one everywhere. */
  updateUser: (changes: Partial<SessionUser>) => void;
}

export const SessionContext = createContext<DashboardSession | null>(null);

export function useSession(): DashboardSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the dashboard shell');
  return session;
}
