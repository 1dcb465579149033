import { z } from 'zod';

/** Query-string limit with the spec's default and maximum. */
export function limitParam(defaultLimit: number, max: number) {
  return z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(defaultLimit)
    .describe(`Page size: default ${defaultLimit}, maximum ${max}.`);
}

export const CursorParam = z
  .string()
  .min(1)
  .max(512)
  .optional()
  .describe('The `nextCursor` of the previous page.');

export function cursorPage<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    nextCursor: z.string().nullable().describe('Pass as `cursor` to get the next page; null on the last page.'),
  });
}
