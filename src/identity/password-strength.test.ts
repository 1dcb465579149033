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
  ])('refuses %j, saying why', (password, reason) => {
    expect(passwordWeakness(password)).toMatch(reason);
  });

  it('accepts long passphrases and random passwords', () => {
    for (const password of ['correct horse battery', 'a long passphrase', 'pw-Xy3kq9LmPz0aQ', 'Tr0ub4dour&3xyz']) {
      expect(passwordWeakness(password)).toBeNull();
    }
  });

  it("refuses a password made of the account's own e-mail address or name", () => {
    expect(passwordWeakness('zuzanna.wierzbicka')).toBeNull();
    expect(passwordWeakness('zuzanna.wierzbicka', ['zuzanna.wierzbicka@example.com', 'Zuzanna Wierzbicka'])).not.toBeNull();
  });
});
