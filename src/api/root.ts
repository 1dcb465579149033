import { scheduleRouter } from '../modules/availability/schedule.router.ts';
import { usersRouter } from '../modules/users/users.router.ts';
import { router } from './trpc.ts';

/** Every procedure of the service; the same object serves /trpc and /api/v2. */
export const appRouter = router({
  users: usersRouter,
  schedule: scheduleRouter,
});

export type AppRouter = typeof appRouter;
