import { invalidField } from '../lib/errors.ts';

/**
 * What a client may register as its metadata (RFC 7591), shared by dynamic registration and the developer
 * settings: redirect URIs and how an authorization request's URI matches one, and app names a person can trust.
 */

export const MAX_REDIRECT_URIS = 10;
const MAX_REDIRECT_URI_LENGTH = 2000;
const MAX_CLIENT_NAME_LENGTH = 100;

// ---------------------------------------------------------------------------------------------------------
// Redirect URIs
// ---------------------------------------------------------------------------------------------------------

/** RFC 3986 URIs are ASCII: printable, no spaces. This also shuts out bidi controls and look-alike hosts. */
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
/** The authority exactly as written: `scheme://` followed by at least one character of host. */
const WRITTEN_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i;
const LOOPBACK = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::(\d*))?((?:[/?].*)?)$/;

/** A port as it should be written: 1 to 65535, no leading zeros (port 0 and 65536+ name no real endpoint). */
function isCanonicalPort(port: string): boolean {
  return /^[1-9]\d{0,4}$/.test(port) && Number(port) <= 65535;
}

/**
 * A loopback redirect URI split into the part that must match exactly and its port (RFC 8252 §7.3), or
 * null when it is not a loopback URI with a usable port.
 */
function loopbackParts(uri: string): { withoutPort: string } | null {
  const match = LOOPBACK.exec(uri);
  if (!match) return null;
  const [, origin, port, rest] = match;
  if (port !== undefined && !isCanonicalPort(port)) return null;
  return { withoutPort: `${origin}${rest}` };
}

/**
 * Whether the host and port as written are what the WHATWG parser understood: no empty host
 * (`https:///cb` parses as host `cb`), no percent-encoded or numeric-shorthand host, a real port.
 */
function authorityProblem(uri: string, url: URL): string | null {
  const written = WRITTEN_AUTHORITY.exec(uri)?.[1]?.toLowerCase();
  if (!written) return 'must name a host (scheme://host/path)';
  const portMatch = /:(\d*)$/.exec(written);
  const host = portMatch ? written.slice(0, portMatch.index) : written;
  if (host !== url.hostname) return 'must name its host plainly (no encoded or abbreviated host)';
  if (portMatch && !isCanonicalPort(portMatch[1] ?? '')) return 'must have a port from 1 to 65535';
  return null;
}

/**
 * Why a redirect URI cannot be registered, or null when it can: an absolute https URI with a host, or http
 * on a loopback host only (BCP 240 §2.6, RFC 8252 §7.3); printable ASCII only; no fragment (RFC 6749
 * §3.1.2), no user information, no other scheme.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length === 0 || uri.length > MAX_REDIRECT_URI_LENGTH) return 'must be 1 to 2000 characters long';
  if (!PRINTABLE_ASCII.test(uri)) return 'must be printable ASCII, without spaces, control or bidirectional characters';
  if (uri.includes('#')) return 'must not contain a fragment';
  if (uri.includes('\\')) return 'must not contain a backslash';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?]*@/i.test(uri)) {
    return 'must not contain user information';
  }
  if (url.protocol === 'https:') return authorityProblem(uri, url);
  if (url.protocol === 'http:' && LOOPBACK.test(uri)) return loopbackParts(uri) ? null : 'must have a port from 1 to 65535';
  if (url.protocol === 'http:') return 'must use https; plain http is allowed only for localhost, 127.0.0.1 and [::1]';
  return 'must use the https scheme (or http on localhost, 127.0.0.1 or [::1])';
}

/**
 * Whether a redirect URI of an authorization request matches a registered one: simple string comparison
 * (RFC 3986 §6.2.1, BCP 240 §2.1), except that a loopback redirect URI may carry any port from 1 to 65535
 * (RFC 8252 §7.3, OAuth 2.1 §8.4.2) — every other component still compares exactly.
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const loopback = loopbackParts(requested);
  if (!loopback) return false;
  return registered.some((candidate) => loopbackParts(candidate)?.withoutPort === loopback.withoutPort);
}

// ---------------------------------------------------------------------------------------------------------
// Client names (shown on the consent screen, so they must not be able to impersonate another app)
// ---------------------------------------------------------------------------------------------------------

/** Control, format (bidi overrides and isolates, zero-width characters), private-use, unassigned, separators. */
const INVISIBLE_OR_CONTROL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}]/u;
const SCRIPTS = [
  'Latin', 'Greek', 'Cyrillic', 'Armenian', 'Hebrew', 'Arabic', 'Syriac', 'Thaana', 'Devanagari', 'Bengali',
  'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala', 'Thai', 'Lao',
  'Tibetan', 'Myanmar', 'Georgian', 'Hangul', 'Ethiopic', 'Cherokee', 'Khmer', 'Mongolian', 'Hiragana',
  'Katakana', 'Bopomofo', 'Han',
] as const;
const SCRIPT_PATTERNS = SCRIPTS.map((script) => ({ script, pattern: new RegExp(`^\\p{Script=${script}}$`, 'u') }));
/** UTS #39 "highly restrictive": one script, or Latin with the scripts East Asian writing combines. */
const ALLOWED_SCRIPT_MIXES: readonly (readonly string[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];

function scriptsOfLetters(text: string): Set<string> {
  const scripts = new Set<string>();
  for (const char of text) {
    if (!/\p{L}/u.test(char) || /[\p{Script=Common}\p{Script=Inherited}]/u.test(char)) continue;
    scripts.add(SCRIPT_PATTERNS.find(({ pattern }) => pattern.test(char))?.script ?? 'other');
  }
  return scripts;
}

/** NFKC folds compatibility look-alikes (fullwidth `Ｇ`, mathematical bold `𝐆`) to the plain letter. */
export function normaliseClientName(name: string): string {
  return name.normalize('NFKC').trim();
}

/**
 * Why a (normalised) client name cannot be shown on a consent screen, or null. Invisible and bidi
 * characters are refused outright; letters must come from one script (or an allowed East Asian mix), so
 * `Gооgle` with Cyrillic o's is refused while `Календарь` or `カレンダー同期` are fine.
 */
export function clientNameProblem(name: string): string | null {
  if (name.length > MAX_CLIENT_NAME_LENGTH) return `must be at most ${MAX_CLIENT_NAME_LENGTH} characters long`;
  if (INVISIBLE_OR_CONTROL.test(name)) return 'must not contain control, invisible or bidirectional-override characters';
  const scripts = [...scriptsOfLetters(name)];
  const mixedOk = scripts.length <= 1 || ALLOWED_SCRIPT_MIXES.some((mix) => scripts.every((script) => mix.includes(script)));
  return mixedOk ? null : 'must not mix letters of different scripts (look-alike letters)';
}

/** A developer's app name, normalised, or a 400 on `name` (developer settings: create and rename). */
export function checkedAppName(raw: string): string {
  const name = normaliseClientName(raw);
  if (name.length === 0) throw invalidField(['name'], `must be 1 to ${MAX_CLIENT_NAME_LENGTH} characters long`);
  const problem = clientNameProblem(name);
  if (problem) throw invalidField(['name'], problem);
  return name;
}
