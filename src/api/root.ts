import { usersRouter } from '../modules/users/users.router.ts';
import { router } from './trpc.ts';

/** Every procedure of the service; the same object serves /trpc and /api/v2. */
export const appRouter = router({
  users: usersRouter,
});

export type AppRouter = typeof appRouter;
