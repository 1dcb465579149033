import type { EntityManager } from '@mikro-orm/postgresql';
import { type CursorBinding, type CursorPosition, decodeCursor, encodeCursor } from './cursor.ts';
import { getServerSecret } from './server-secret.ts';

/** The HMAC key of the keyset cursors of every list (bookings, leads). */
const CURSOR_SECRET_NAME = 'paging-cursor';

/**
 * A timestamptz sort key as exact text (microseconds, UTC). The cursor carries this text and the next
 * query casts it back with `?::timestamptz`: a JS Date would drop the microseconds and skip rows.
 */
export const sortKeySql = (column: string): string =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** One keyset-paged list request: where to start (from the client's cursor) and how to finish the page. */
export interface Keyset {
  /** The position after which the page starts, or undefined for the first page. */
  after: CursorPosition | undefined;
  /** Turns the `limit + 1` rows fetched into the page and its nextCursor. */
  page<Row extends { id: string; sort_key: string }, T>(rows: Row[], limit: number, toDto: (row: Row) => T): Page<T>;
}

/** Checks the client's cursor against this query's binding (400 `invalid_cursor` when it does not match). */
export async function openKeyset(em: EntityManager, binding: CursorBinding, cursor: string | undefined): Promise<Keyset> {
  const secret = await getServerSecret(em, CURSOR_SECRET_NAME);
  return {
    after: cursor === undefined ? undefined : decodeCursor(secret, binding, cursor),
    page(rows, limit, toDto) {
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map(toDto),
        nextCursor:
          rows.length > limit && last ? encodeCursor(secret, binding, { key: last.sort_key, id: last.id }) : null,
      };
    },
  };
}
