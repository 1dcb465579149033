// Lint rules for the whole repository: ESLint with typescript-eslint (pure JavaScript, so it installs from the
// lockfile on every platform; Biome's per-platform binaries are not all on the registry these machines use).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layers, lowest first (docs/development.md, "Layers"): a file may import its own layer and those below, never one above.
// Imports are relative, so each pattern names the folder an import climbs into.
const climbsInto = (...folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;
const COMPOSITION = '^(\\.\\./)+(app|main|bearer-resolvers|mikro-orm\\.config)\\.ts$';
const ORM_BOOTSTRAP = '^(\\.\\./)+db/(orm|entities)\\.ts$';
const API_ASSEMBLY = '^(\\.\\./)+api/(root|openapi)\\.ts$';
const ROUTER = '\\.router\\.ts$';

function layer(files, message, forbidden, ignores = []) {
  const patterns = forbidden.map((regex) => ({ regex, message }));
  return { files, ignores, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

const layering = [
  layer(['src/config/**'], 'src/config imports nothing of ours.', [
    climbsInto('lib', 'db', 'identity', 'oauth', 'modules', 'api', 'http', 'mcp'),
    COMPOSITION,
  ]),
  layer(['src/lib/**'], 'src/lib may import only src/config.', [
    climbsInto('db', 'identity', 'oauth', 'modules', 'api', 'http', 'mcp'),
    COMPOSITION,
  ]),
  layer(['src/db/**'], 'src/db may import src/config, src/lib and (its entity registry) any *.entity.ts.', [
    '^(\\.\\./)+(identity|oauth|modules|api|http|mcp)/(?!.*\\.entity\\.ts$)',
    '^(\\.\\./)+(app|main|bearer-resolvers)\\.ts$',
  ]),
  layer(['src/identity/**'], 'src/identity may import src/lib, src/config and src/db helpers (not the ORM bootstrap).', [
    climbsInto('oauth', 'modules', 'api', 'http', 'mcp'),
    ORM_BOOTSTRAP,
    COMPOSITION,
  ]),
  layer(['src/oauth/**'], 'src/oauth may import src/identity, src/lib, src/config and src/db helpers.', [
    climbsInto('modules', 'api', 'http', 'mcp'),
    ORM_BOOTSTRAP,
    COMPOSITION,
  ]),
  layer(
    ['src/modules/**'],
    "A module's services, schemas and entities may import other modules' (not routers), src/identity, src/lib, src/config.",
    [climbsInto('oauth', 'api', 'http', 'mcp'), ROUTER, ORM_BOOTSTRAP, COMPOSITION],
    ['src/modules/**/*.router.ts', 'src/modules/developer-settings/**'],
  ),
  layer(
    ['src/modules/developer-settings/**'],
    "Developer settings (the user's tokens and OAuth apps) may import what other modules may, and src/oauth.",
    [climbsInto('api', 'http', 'mcp'), ROUTER, ORM_BOOTSTRAP, COMPOSITION],
    ['src/modules/**/*.router.ts'],
  ),
  layer(
    ['src/modules/**/*.router.ts'],
    "A module's router (the top of its module) may import its module, src/api's base (not root.ts or openapi.ts), src/identity, src/lib.",
    [climbsInto('oauth', 'http', 'mcp'), API_ASSEMBLY, ORM_BOOTSTRAP, COMPOSITION],
  ),
  layer(
    ['src/api/**'],
    "src/api's base (tRPC instance, context, procedures) may import module services, src/identity, src/lib, src/config; only root.ts assembles routers.",
    [climbsInto('oauth', 'http', 'mcp'), ROUTER, '^\\./(root|openapi)\\.ts$', ORM_BOOTSTRAP, COMPOSITION],
    ['src/api/root.ts', 'src/api/openapi.ts'],
  ),
  layer(['src/api/root.ts', 'src/api/openapi.ts'], 'src/api may import src/modules, src/identity, src/lib, src/config.', [
    climbsInto('oauth', 'http', 'mcp'),
    ORM_BOOTSTRAP,
    COMPOSITION,
  ]),
  layer(['src/http/**'], 'src/http may import src/api, src/identity, src/lib, src/config (the app wires src/oauth).', [
    climbsInto('oauth', 'modules', 'mcp'),
    ORM_BOOTSTRAP,
    COMPOSITION,
  ]),
  layer(['src/mcp/**'], 'src/mcp (the MCP door, beside src/http) may import src/api, src/identity, src/lib, src/config.', [
    climbsInto('oauth', 'modules', 'http'),
    ORM_BOOTSTRAP,
    COMPOSITION,
  ]),
];

const WEB_MESSAGE = "web/ may import only the router's types (src/api/root.ts), as a type import.";
const webImportsOnlyTheRouterTypes = {
  files: ['web/**'],
  rules: {
    'no-restricted-imports': ['error', { patterns: [{ regex: '^(\\.\\./)+src/(?!api/root\\.ts$)', message: WEB_MESSAGE }] }],
    '@typescript-eslint/no-restricted-imports': [
      'error',
      { patterns: [{ regex: '^(\\.\\./)+src/api/root\\.ts$', allowTypeImports: true, message: WEB_MESSAGE }] },
    ],
  },
};

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
  ...layering,
  webImportsOnlyTheRouterTypes,
);
