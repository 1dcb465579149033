import { describe, expect, it } from 'vitest';
import { passwordWeakness } from './password-strength.ts';

describe('passwordWeakness', () => {
  it.each([
    ['aaaaaaaaaa', /repeated/i],
    ['password12', /common/i],
    ['1234567890', /frequently used|common/i],
    [' '.repeat(12), /repeated/i],
    ['abcdefghijkl', /sequences/i],
    ['qwertyuiop12', /common/i],
  ])('refuses %j, saying why', async (password, reason) => {
    expect(await passwordWeakness(password)).toMatch(reason);
  });

  it('accepts long passphrases and random passwords', async () => {
    for (const password of ['correct horse battery', 'a long passphrase', 'pw-Xy3kq9LmPz0aQ', 'Tr0ub4dour&3xyz']) {
      expect(await passwordWeakness(password)).toBeNull();
    }
  });

  it('bounds the work on long passwords full of symbols', async () => {
    const symbols = Array.from({ length: 1000 }, (_, i) => String.fromCharCode(33 + ((i * 37) % 90))).join('');
    const started = performance.now();
    expect(await passwordWeakness(symbols)).toBeNull();
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("refuses a password made of the account's own e-mail address or name", async () => {
    expect(await passwordWeakness('zuzanna.wierzbicka')).toBeNull();
    expect(await passwordWeakness('zuzanna.wierzbicka', ['zuzanna.wierzbicka@example.com', 'Zuzanna Wierzbicka'])).not.toBeNull();
  });
});
