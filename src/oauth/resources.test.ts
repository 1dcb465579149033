import { describe, expect, it } from 'vitest';
import { OAuthError } from './errors.ts';
import { audienceAllows, canonicalResource, resourceCovers } from './resources.ts';

const SITE = 'http://127.0.0.1:4010';

function targetError(value: string): OAuthError | undefined {
  try {
    canonicalResource(SITE, value);
    return undefined;
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
}

describe('canonicalResource (RFC 8707)', () => {
  it('normalises the origin with or without a trailing slash, scheme and host case, and default ports', () => {
    expect(canonicalResource(SITE, SITE)).toBe(SITE);
    expect(canonicalResource(SITE, `${SITE}/`)).toBe(SITE);
    expect(canonicalResource(SITE, 'HTTP://127.0.0.1:4010/api/v2/')).toBe(`${SITE}/api/v2`);
    expect(canonicalResource(SITE, `${SITE}/mcp`)).toBe(`${SITE}/mcp`);
    expect(canonicalResource('https://sched.example', 'https://SCHED.example:443/api/v2')).toBe(
      'https://sched.example/api/v2',
    );
  });

  it('refuses relative URIs, fragments, queries and resources that are not ours with invalid_target', () => {
    for (const value of ['/api/v2', 'api', `${SITE}/api/v2#x`, `${SITE}/api/v2?x=1`, 'https://other.example/api/v2', `${SITE}/api`]) {
      expect(targetError(value)?.code, value).toBe('invalid_target');
    }
  });
});

describe('resourceCovers and audienceAllows', () => {
  it('lets a grant for the origin cover every resource, others only themselves', () => {
    expect(resourceCovers(SITE, SITE, `${SITE}/mcp`)).toBe(true);
    expect(resourceCovers(SITE, null, `${SITE}/mcp`)).toBe(true);
    expect(resourceCovers(SITE, `${SITE}/api/v2`, `${SITE}/api/v2`)).toBe(true);
    expect(resourceCovers(SITE, `${SITE}/api/v2`, `${SITE}/mcp`)).toBe(false);
    expect(resourceCovers(SITE, `${SITE}/api/v2`, SITE)).toBe(false);
  });

  it('accepts on /api/v2 tokens for no resource, the origin or /api/v2; on /mcp only those for the origin or /mcp', () => {
    expect(audienceAllows(null, '/api/v2')).toBe(true);
    expect(audienceAllows(SITE, '/api/v2')).toBe(true);
    expect(audienceAllows(`${SITE}/api/v2`, '/api/v2')).toBe(true);
    expect(audienceAllows(`${SITE}/mcp`, '/api/v2')).toBe(false);
    expect(audienceAllows(`${SITE}/api/v2`, '/mcp')).toBe(false);
    expect(audienceAllows(null, '/mcp')).toBe(false);
    expect(audienceAllows(SITE, '/mcp')).toBe(true);
    expect(audienceAllows(`${SITE}/mcp`, '/mcp')).toBe(true);
  });
});
