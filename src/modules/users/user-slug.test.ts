import { describe, expect, it } from 'vitest';
import { RESERVED_USER_SLUGS, userSlugProblem } from './user-slug.ts';

describe('userSlugProblem', () => {
  it.each(['abc', 'hanna', 'hanna-host', 'team-42', '007', 'a'.repeat(40), 'a--b'])('accepts %j', (slug) => {
    expect(userSlugProblem(slug)).toBeNull();
  });

  it.each([
    ['ab', /3 to 40/],
    ['a'.repeat(41), /3 to 40/],
    ['Hanna', /lowercase/],
    ['hanna host', /lowercase/],
    ['-hanna', /start and end/],
    ['hanna-', /start and end/],
    ['hanna_host', /lowercase/],
    ['hännа', /lowercase/],
    ['.well-known', /lowercase/],
    ['a/b', /lowercase/],
  ])('refuses %j, saying why', (slug, reason) => {
    expect(userSlugProblem(slug)).toMatch(reason);
  });

  it('refuses every reserved word, naming it', () => {
    for (const slug of RESERVED_USER_SLUGS) expect(userSlugProblem(slug), slug).toBe(`"${slug}" is reserved; choose another`);
    for (const slug of ['app', 'api', 'mcp', 'oauth', 'manage', 'well-known']) expect(RESERVED_USER_SLUGS.has(slug)).toBe(true);
  });
});
