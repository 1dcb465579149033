/**
 * The rules of a booking-page slug (`/book/<slug>/<event type>`) a user chooses. Reserved: every first path segment
 * the service answers (a future page at `/<slug>` must not shadow one), `manage` (`/book/manage/<secret>` is the
 * invitee's page), and names that would pass for the service's own pages.
 */
export const USER_SLUG_MIN = 3;
export const USER_SLUG_MAX = 40;

export const RESERVED_USER_SLUGS: ReadonlySet<string> = new Set([
  // First path segments of the service (src/app.ts and the routes it registers).
  'api',
  'app',
  'book',
  'docs',
  'embed',
  'healthz',
  'login',
  'logout',
  'mcp',
  'oauth',
  'readyz',
  'signup',
  'trpc',
  'well-known',
  // Under /book.
  'manage',
  // Would pass for the service speaking.
  'account',
  'admin',
  'help',
  'settings',
  'support',
  'www',
]);

export const USER_SLUG_SHAPE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
export const USER_SLUG_LENGTH_PROBLEM = `must be ${USER_SLUG_MIN} to ${USER_SLUG_MAX} characters long`;
export const USER_SLUG_SHAPE_PROBLEM =
  'may contain only lowercase letters (a–z), digits and hyphens, and must start and end with a letter or digit';

/** Why `slug` cannot be chosen, as the end of a sentence about the field, or null when it can. */
export function userSlugProblem(slug: string): string | null {
  if (slug.length < USER_SLUG_MIN || slug.length > USER_SLUG_MAX) return USER_SLUG_LENGTH_PROBLEM;
  if (!USER_SLUG_SHAPE.test(slug)) return USER_SLUG_SHAPE_PROBLEM;
  if (RESERVED_USER_SLUGS.has(slug)) return `"${slug}" is reserved; choose another`;
  return null;
}
