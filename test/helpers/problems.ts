import { expect } from 'vitest';

/**
 * A 400 problem that names the input at fault: a query parameter by its name (which the message names too), or a
 * body field by its path; with `code`, the detail's code as well.
 */
export function expectBadRequest(res: { status: number; body: unknown }, path: string | (string | number)[], code?: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toEqual({
    title: 'Bad Request',
    message: typeof path === 'string' ? expect.stringContaining(path) : expect.any(String),
    details: expect.arrayContaining([
      expect.objectContaining({ path: typeof path === 'string' ? [path] : path, message: expect.any(String), ...(code ? { code } : {}) }),
    ]),
  });
}
