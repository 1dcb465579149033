import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/**
 * zxcvbn's score 3 ("safely unguessable", about 10^8 guesses): below it are the common passwords, repeated and
 * sequential characters, keyboard walks, dates and dictionary words with a digit or two (NIST SP 800-63B §3.1.1.2).
 */
const MIN_SCORE = 3;

/** Every way to set a password (sign-up, the CLI, account settings) holds it to these lengths and MIN_SCORE. */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 1000;

/**
 * The estimate's cost grows steeply with length and with characters that read as l33t substitutions (a random
 * 256-character password took seconds of CPU); these bounds keep the worst case to a fraction of a second. A password
 * whose first 64 characters are strong is strong.
 */
const CHECKED_LENGTH = 64;
const MAX_L33T_SUBSTITUTIONS = 10;

let estimator: Promise<ZxcvbnFactory> | undefined;

/**
 * Loaded and built on first use: the dictionaries are about 14 MB of heap that an instance which never sets a
 * password does not carry (a larger heap is slower garbage collection on every request).
 */
function strengthEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, commonLanguage, english] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...commonLanguage.dictionary, ...english.dictionary },
      graphs: commonLanguage.adjacencyGraphs,
      translations: english.translations,
      maxLength: CHECKED_LENGTH,
      l33tMaxSubstitutions: MAX_L33T_SUBSTITUTIONS,
    });
  })();
  return estimator;
}

/**
 * Why `password` is too easy to guess, as a sentence for the person choosing it, or null when it is strong enough.
 * `personalInputs` (the account's e-mail, name) and their parts count as known words, so a password made of them is
 * refused too.
 */
export async function passwordWeakness(password: string, personalInputs: readonly string[] = []): Promise<string | null> {
  const inputs = personalInputs
    .flatMap((input) => [input, ...input.split('@'), ...input.split(/[^\p{L}\p{N}]+/u)])
    .filter((word) => word.length > 2);
  const result = (await strengthEstimator()).check(password, inputs);
  if (result.score >= MIN_SCORE) return null;
  const reason = result.feedback.warning ?? 'This password is too easy to guess.';
  const advice = result.feedback.suggestions.length > 0 ? result.feedback.suggestions : ['Add more words that are less common.'];
  return `${reason} ${advice.join(' ')}`;
}
