import { describe, expect, it } from 'vitest';
import { SECRET_PREFIXES } from '../../src/app.ts';
import { REDACTED, urlRedactor } from '../../src/http/request-log.ts';
import { generateToken } from '../../src/lib/secrets.ts';

/** The request log's redaction of URLs, with the service's own secret prefixes. */
const redactUrl = urlRedactor(SECRET_PREFIXES);

const pat = generateToken('pat_');
const body = pat.slice('pat_'.length);

describe('redactUrl', () => {
  it.each([
    ['a PAT under any query parameter name', `/api/v2/me?api_key=${pat}&limit=5`, `/api/v2/me?api_key=pat_${REDACTED}&limit=5`],
    ['under ?pat=', `/api/v2/me?pat=${pat}`, `/api/v2/me?pat=pat_${REDACTED}`],
    ['under ?auth= as a bearer header value', `/mcp?auth=Bearer%20${pat}`, `/mcp?auth=Bearer%20pat_${REDACTED}`],
    ['in a path segment', `/api/v2/${pat}/me`, `/api/v2/pat_${REDACTED}/me`],
    ['in a fragment', `/app#token=${pat}`, `/app#token=pat_${REDACTED}`],
    ['with its underscore percent-encoded', `/x?a=pat%5F${body}`, `/x?a=pat%5F${REDACTED}`],
    ['upper-cased', `/x?a=${pat.toUpperCase()}`, `/x?a=PAT_${REDACTED}`],
    ['with a checksum of another alphabet appended', `/x?a=${pat}_A1b2C3d4&b=1`, `/x?a=pat_${REDACTED}&b=1`],
  ])('redacts %s', (_label, url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });

  it.each(['oat_', 'ort_', 'oac_', 'ocs_', 'ses_', 'csrf_', 'dev_', 'bkm_'])('redacts a %s token wherever it is', (prefix) => {
    const token = generateToken(prefix);
    const logged = redactUrl(`/somewhere/${token}?x=${token}#${token}`);
    expect(logged).not.toContain(token.slice(prefix.length));
    expect(logged).toBe(`/somewhere/${prefix}${REDACTED}?x=${prefix}${REDACTED}#${prefix}${REDACTED}`);
  });

  it('redacts a webhook secret, base64 with its +, / and = raw or percent-encoded', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8I+PZIo2La/aSw3wC7Hc8qYzE=';
    expect(redactUrl(`/x?s=${secret}&y=2`)).toBe(`/x?s=whsec_${REDACTED}&y=2`);
    expect(redactUrl(`/x?s=${encodeURIComponent(secret)}`)).toBe(`/x?s=whsec_${REDACTED}`);
  });

  it('leaves what merely contains a prefix, or is too short to be a secret', () => {
    for (const url of ['/api/v2/bookings?status=upcoming&uses_count=12345678', '/x?a=pat_short', '/api/v2/webhooks/oci_client/deliveries']) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});
