/**
 * Raw SQL rows (em.execute) carry timestamptz columns as PostgreSQL text ("2026-11-21 18:51:36.7+00"),
 * while entities carry Date objects; these accept either.
 */
export type SqlTimestamp = Date | string;

export function toDate(value: SqlTimestamp): Date {
  return value instanceof Date ? value : new Date(value);
}

export function toIsoString(value: SqlTimestamp): string {
  return toDate(value).toISOString();
}

export function toIsoStringOrNull(value: SqlTimestamp | null | undefined): string | null {
  return value === null || value === undefined ? null : toIsoString(value);
}
