// Lint rules for the whole repository: ESLint with typescript-eslint (pure JavaScript, so it installs from the
// lockfile on every platform; Biome's per-platform binaries are not all on the registry these machines use).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', 'bench/results/', 'test/artifacts/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', crypto: 'readonly', window: 'readonly', document: 'readonly' },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        { object: 'it', property: 'only', message: 'Focused tests hide the rest of the suite.' },
        { object: 'describe', property: 'only', message: 'Focused tests hide the rest of the suite.' },
        { object: 'it', property: 'skip', message: 'Every test must run.' },
        { object: 'describe', property: 'skip', message: 'Every test must run.' },
        { object: 'test', property: 'only', message: 'Focused tests hide the rest of the suite.' },
        { object: 'test', property: 'skip', message: 'Every test must run.' },
      ],
      'no-undef': 'off',
    },
  },
);
