// Lint rules for the whole repository: ESLint with typescript-eslint (pure JavaScript, so it installs from the
// lockfile on every platform; Biome's per-platform binaries are not all on the registry these machines use).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layers, lowest first (docs/development.md, "Layers"): a file may import its own layer and those below, never one above.
// Imports are relative, so each pattern names the folder an import climbs into.
const climbsInto = (...folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;
const COMPOSITION = '^(\\.\\./)+(app|main|bearer-resolvers|mikro-orm\\.config)\\.ts$';
const ORM_BOOTSTRAP = '^(\\.\\./)+db/(orm|entities)\\.ts$';
const ROUTER = '\\.router\\.ts$';
// A door reaches the API through src/api/call.ts alone (context, gate, call), and the root router for its procedures.
const API_INSIDES = '^(\\.\\./)+api/(?!call\\.ts$)';
const DOOR_TESTS = ['src/http/**/*.test.ts', 'src/mcp/**/*.test.ts'];

function layer(files, message, forbidden, ignores = []) {
  const patterns = forbidden.map((regex) => ({ regex, message }));
  return { files, ignores, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

const httpDoor = (files, message, otherDoors, ignores = []) =>
  layer(files, message, [climbsInto('oauth', 'modules', 'mcp'), API_INSIDES, ...otherDoors, ORM_BOOTSTRAP, COMPOSITION], [...DOOR_TESTS, ...ignores]);

const layering = [
  layer(['src/config/**'], 'src/config imports nothing of ours.', [
    climbsInto('lib', 'db', 'identity', 'oauth', 'modules', 'api', 'router', 'http', 'mcp'),
    COMPOSITION,
  ]),
  layer(['src/lib/**'], 'src/lib may import only src/config.', [
    climbsInto('db', 'identity', 'oauth', 'modules', 'api', 'router', 'http', 'mcp'),
    COMPOSITION,
  ]),
  layer(['src/db/**'], 'src/db may import src/config, src/lib and (its entity registry) any *.entity.ts.', [
    '^(\\.\\./)+(identity|oauth|modules|api|router|http|mcp)/(?!.*\\.entity\\.ts$)',
    '^(\\.\\./)+(app|main|bearer-resolvers)\\.ts$',
  ]),
  layer(['src/identity/**'], 'src/identity may import src/lib, src/config and src/db helpers (not the ORM bootstrap), neither src/oauth nor the modules.', [
    climbsInto('oauth', 'modules', 'api', 'router', 'http', 'mcp'),
    ORM_BOOTSTRAP,
    COMPOSITION,
  ]),
  layer(['src/oauth/**'], 'src/oauth may import src/identity, src/lib, src/config and src/db helpers.', [
    climbsInto('modules', 'api', 'router', 'http', 'mcp'),
    ORM_BOOTSTRAP,
    COMPOSITION,
  ]),
  layer(
    ['src/modules/**'],
    "A module's services, schemas and entities may import other modules' (not routers), src/identity, src/lib, src/config; never a door.",
    [climbsInto('oauth', 'api', 'router', 'http', 'mcp'), ROUTER, ORM_BOOTSTRAP, COMPOSITION],
    ['src/modules/**/*.router.ts', 'src/modules/developer-settings/**'],
  ),
  layer(
    ['src/modules/developer-settings/**'],
    "Developer settings (the user's tokens and OAuth apps) may import what other modules may, and src/oauth; never a door.",
    [climbsInto('api', 'router', 'http', 'mcp'), ROUTER, ORM_BOOTSTRAP, COMPOSITION],
    ['src/modules/**/*.router.ts'],
  ),
  layer(
    ['src/modules/**/*.router.ts'],
    "A module's router (the top of its module) may import its module, src/api (the base procedures), src/identity, src/lib; never the root router or a door.",
    [climbsInto('oauth', 'router', 'http', 'mcp'), ORM_BOOTSTRAP, COMPOSITION],
  ),
  layer(
    ['src/api/**'],
    'src/api (the base procedures: tRPC instance, context, the call path and its gate) may import src/identity, src/lib, src/config; never a module, a router or a door.',
    [climbsInto('oauth', 'router', 'http', 'mcp', 'modules'), ORM_BOOTSTRAP, COMPOSITION],
  ),
  layer(['src/router/**'], 'src/router (the root router and its OpenAPI document) may import src/modules, src/api, src/identity, src/lib, src/config.', [
    climbsInto('oauth', 'http', 'mcp'),
    ORM_BOOTSTRAP,
    COMPOSITION,
  ]),
  httpDoor(
    ['src/http/*.ts'],
    "src/http's shared pieces may import src/api/call.ts, src/router, src/identity, src/lib, src/config; no door (rest/, trpc/, src/mcp).",
    ['^\\./(rest|trpc)/'],
  ),
  httpDoor(
    ['src/http/rest/**'],
    'The REST door may import src/http, src/api/call.ts, src/router, src/identity, src/lib, src/config; no other door.',
    ['^\\.\\./trpc/'],
  ),
  httpDoor(
    ['src/http/trpc/**'],
    'The tRPC door may import src/http, src/api/call.ts, src/router, src/identity, src/lib, src/config; no other door.',
    ['^\\.\\./rest/'],
  ),
  layer(
    ['src/mcp/**'],
    'The MCP door may import src/api/call.ts, src/router, src/identity, src/lib, src/config; no other door.',
    [climbsInto('oauth', 'modules', 'http'), API_INSIDES, ORM_BOOTSTRAP, COMPOSITION],
    DOOR_TESTS,
  ),
];

const WEB_MESSAGE = "web/ may import only the router's types (src/router/root.ts), as a type import.";
const webImportsOnlyTheRouterTypes = {
  files: ['web/**'],
  rules: {
    'no-restricted-imports': ['error', { patterns: [{ regex: '^(\\.\\./)+src/(?!router/root\\.ts$)', message: WEB_MESSAGE }] }],
    '@typescript-eslint/no-restricted-imports': [
      'error',
      { patterns: [{ regex: '^(\\.\\./)+src/router/root\\.ts$', allowTypeImports: true, message: WEB_MESSAGE }] },
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
