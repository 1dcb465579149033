import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientNameProblem, normaliseClientName, redirectUriMatches, redirectUriProblem } from './client-metadata.ts';

describe('redirectUriProblem (what may be registered)', () => {
  it.each([
    'https://app.example.com/callback',
    'https://app.example.com/cb?tenant=42',
    'http://localhost:8080/callback',
    'http://localhost/callback',
    'http://127.0.0.1:53682/cb',
    'http://[::1]:9000/cb',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
  });

  it.each([
    ['http://app.example.com/callback', /https/],
    ['http://localhost.evil.com/cb', /https/],
    ['http://127.0.0.2/cb', /https/],
    ['https://app.example.com/cb#fragment', /fragment/],
    ['/callback', /absolute/],
    ['callback', /absolute/],
    ['javascript:alert(1)', /scheme/],
    ['data:text/html,hi', /scheme/],
    ['com.example.app:/oauth', /scheme/],
    ['https://good.example@evil.example/cb', /user information/],
    ['https://app.example.com/ca llback', /spaces/],
    ['', /characters long/],
    ['https:///callback', /host/],
    ['https://%61pp.example.com/cb', /host plainly/],
    ['https://0x7f.1/cb', /host plainly/],
    ['https://app.example.com:0/cb', /port/],
    ['https://app.example.com:/cb', /port/],
    ['http://127.0.0.1:0/cb', /port/],
    ['https://app.example.com/\u202ecb', /ASCII/],
  ])('refuses %s', (uri, reason) => {
    expect(redirectUriProblem(uri)).toMatch(reason);
  });
});

describe('redirectUriMatches (authorization requests)', () => {
  const registered = ['https://app.example.com/callback', 'https://app.example.com/cb?tenant=42'];

  it('matches registered URIs by exact string only', () => {
    expect(redirectUriMatches(registered, 'https://app.example.com/callback')).toBe(true);
    expect(redirectUriMatches(registered, 'https://app.example.com/cb?tenant=42')).toBe(true);
    for (const nearMiss of [
      'https://app.example.com/callback/',
      'https://APP.example.com/callback',
      'https://app.example.com/Callback',
      'https://app.example.com/callback?x=1',
      'https://app.example.com/callback/more',
      'https://app.example.com:8443/callback',
      'https://app.example.com:443/callback',
      'https://app.example.com@evil.example/callback',
      'https://app.example.com.evil.example/callback',
      'https://app.example.com/cb?tenant=43',
      'https://app.example.com/cb?tenant=42&x=1',
      'https://app.example.com/%63allback',
      'http://app.example.com/callback',
    ]) {
      expect(redirectUriMatches(registered, nearMiss), nearMiss).toBe(false);
    }
  });

  it('property: any change to a registered https URI is refused', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...registered),
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.nat(),
        (uri, insert, position) => {
          const at = position % (uri.length + 1);
          const mutated = uri.slice(0, at) + insert + uri.slice(at);
          return redirectUriMatches(registered, mutated) === registered.includes(mutated);
        },
      ),
    );
  });

  it('lets a loopback redirect URI use any port, every other component exact (RFC 8252 §7.3)', () => {
    const loopback = ['http://127.0.0.1/callback', 'http://localhost:8080/cb', 'http://[::1]/cb'];
    expect(redirectUriMatches(loopback, 'http://127.0.0.1:55555/callback')).toBe(true);
    expect(redirectUriMatches(loopback, 'http://127.0.0.1/callback')).toBe(true);
    expect(redirectUriMatches(loopback, 'http://localhost:1234/cb')).toBe(true);
    expect(redirectUriMatches(loopback, 'http://localhost/cb')).toBe(true);
    expect(redirectUriMatches(loopback, 'http://[::1]:4000/cb')).toBe(true);
    expect(redirectUriMatches(loopback, 'http://127.0.0.1:55555/callback/')).toBe(false);
    expect(redirectUriMatches(loopback, 'http://127.0.0.1:55555/other')).toBe(false);
    expect(redirectUriMatches(loopback, 'https://127.0.0.1:55555/callback')).toBe(false);
    expect(redirectUriMatches(loopback, 'http://localhost:1234@evil.example/cb')).toBe(false);
    expect(redirectUriMatches(loopback, 'http://localhost.evil.example:1234/cb')).toBe(false);
    expect(redirectUriMatches(loopback, 'http://127.0.0.1:55555/callback?x=1')).toBe(false);
  });
});

describe('redirectUriMatches: loopback ports', () => {
  it('matches any port from 1 to 65535, and nothing else', () => {
    const registered = ['http://127.0.0.1/callback'];
    for (const port of ['1', '8080', '65535']) expect(redirectUriMatches(registered, `http://127.0.0.1:${port}/callback`)).toBe(true);
    for (const port of ['0', '65536', '99999', '08080', '']) {
      expect(redirectUriMatches(registered, `http://127.0.0.1:${port}/callback`), port).toBe(false);
    }
  });
});

describe('client names', () => {
  it('refuses invisible, bidi and mixed-script names; accepts one script or an East Asian mix', () => {
    for (const name of ['a\u202eb', 'a\u2066b', 'a\u200bb', 'a\u0000b', 'P\u0430yPal', 'Micr\u03bfsoft']) {
      expect(clientNameProblem(normaliseClientName(name)), name).not.toBeNull();
    }
    for (const name of ['PayPal', 'Календарь', '予定表 Sync', '일정 Calendar', 'Ｇｏｏｇｌｅ']) {
      expect(clientNameProblem(normaliseClientName(name)), name).toBeNull();
    }
  });
});
