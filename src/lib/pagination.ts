import { z } from 'zod';
import { EXAMPLE } from './examples.ts';

/** Query-string limit with the spec's default and maximum. */
export function limitParam(defaultLimit: number, max: number) {
  return z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(defaultLimit)
    .meta({ description: `Page size: default ${defaultLimit}, maximum ${max}.`, examples: [Math.min(20, max)] });
}

/**
 * No example: only the API issues cursors (any other is a 400), and a reference's "Try it" sends an optional
 * parameter's example, while it leaves one without a value out.
 */
export const CursorParam = z
  .string()
  .min(1)
  .max(512)
  .meta({ description: 'The `nextCursor` of the previous page; omit for the first page.' })
  .optional();

export function cursorPage<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item).meta({ description: 'This page’s items.' }),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` to get the next page; null on the last page.', examples: [EXAMPLE.cursor] }),
  });
}
