/**
 * Raw SQL rows (em.execute) carry timestamptz columns as PostgreSQL text ("2026-11-21 18:51:36.7+00"),
 * while entities carry Date objects; these accept either.
 */
export type SqlTimestamp = Date | string;

export function toDate(value: SqlTimestamp): Date {
  return value instanceof Date ? value : new Date(value);
}

/** PostgreSQL's text for a UTC timestamptz: date, time, up to six fractional digits, `+00`. */
const UTC_TIMESTAMP_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * The ISO 8601 text of a timestamp, as `Date.prototype.toISOString` writes it (milliseconds, `Z`). A UTC text
 * from PostgreSQL is rewritten directly: parsing its non-ISO form into a Date and back was 5 % of the CPU of a
 * page of 100 leads. Anything else (another offset, a year past 9999) goes through Date.
 */
export function toIsoString(value: SqlTimestamp): string {
  if (typeof value === 'string') {
    const utc = UTC_TIMESTAMP_TEXT.exec(value);
    if (utc) return `${utc[1]}T${utc[2]}.${(utc[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  }
  return toDate(value).toISOString();
}

export function toIsoStringOrNull(value: SqlTimestamp | null | undefined): string | null {
  return value === null || value === undefined ? null : toIsoString(value);
}
