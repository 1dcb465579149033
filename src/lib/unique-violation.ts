/**
 * The constraint a PostgreSQL unique_violation (23505) names, wherever the driver or the ORM put the error in the
 * cause chain; undefined for any other error.
 */
export function violatedUniqueConstraint(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (candidate.code === '23505') return typeof candidate.constraint === 'string' ? candidate.constraint : '';
    current = candidate.cause;
  }
  return undefined;
}
