import { z } from 'zod';

/**
 * A boolean query parameter. The REST adapter coerces plain z.boolean() inputs with Boolean(value),
 * which turns the string "false" into true; this accepts exactly `true`/`false` (as booleans from tRPC,
 * as strings from a query string) and is documented as a boolean.
 */
export function booleanQueryParam(description: string, example: boolean) {
  return z
    .union([z.boolean(), z.enum(['true', 'false'])], { error: 'must be true or false' })
    .transform((value) => value === true || value === 'true')
    .meta({
      description,
      // Set here rather than as `examples` metadata, which the generator drops from a transformed union.
      override: ({ jsonSchema }) => {
        delete jsonSchema.anyOf;
        jsonSchema.type = 'boolean';
        jsonSchema.examples = [example];
      },
    });
}

/** An instant in a query string: RFC 3339 with an offset (`Z` or `±hh:mm`). */
export function dateTimeQueryParam(description: string, example: string) {
  return z.iso
    .datetime({
      offset: true,
      error: 'must be an RFC 3339 date-time with an offset, e.g. 2026-03-01T09:00:00Z (in a query string, write "+" as %2B)',
    })
    .meta({ description, examples: [example] });
}

/** A query-string offset: default 0. */
export const OffsetParam = z.coerce
  .number()
  .int()
  .min(0)
  .default(0)
  .meta({ description: 'How many items to skip: 0 for the first page, then the previous `nextOffset`.', examples: [0] });
