// Type-aware lint. The dependency direction (see CONTRIBUTING.md) is enforced here too.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Each entry is [glob patterns, message]; a file gets one list, since a later block replaces the rule.
const restrict = (...rules) => ['error', { patterns: rules.map(([group, message]) => ({ group, message })) }];
const shared = [
  [
    '**/sessions/**',
    '**/server/**',
    '**/cli/**',
    '**/store/**',
    '**/agents/**',
    '**/worktrees/**',
    '**/bus/**',
    '**/scheduler/**',
  ],
  'Shared types and helpers depend on nothing above them.',
];
const middle = [
  ['**/sessions/**', '**/server/**', '**/cli/**'],
  'Agents, store, worktrees, the bus, the scheduler and review sit below sessions, server and the CLI: they may not import them.',
];
// Spelled relative: the MCP SDK's own modules live under a `server/` folder too.
const mcp = [
  ['../sessions/**', '../server/**', '../cli/**'],
  'The MCP server (src/mcp) sits below sessions, server and the CLI: it takes them through interfaces (McpSessions, BatonApi).',
];
const cli = [
  ['**/store/**', '**/sessions/host*', '**/agents/**', '**/bus/**', '**/scheduler/**'],
  'The CLI is a thin client of the supervisor API: import api/, events/ and shared/ only.',
];
// Commands share code through cli/ modules (connect.ts, flags.ts); importing main.ts or another command made circles.
const commands = [
  ['**/main', '**/main.js', '**/sessions', '**/sessions.js'],
  'Commands import cli/ modules (connect.ts, flags.ts), not main.ts or commands/sessions.ts.',
];
const web = [
  [
    '**/src/sessions/**',
    '**/src/server/**',
    '**/src/cli/**',
    '**/src/store/**',
    '**/src/agents/**',
    '**/src/worktrees/**',
    '**/src/shared/**',
    '**/src/bus/**',
    '**/src/scheduler/**',
  ],
  'The web UI imports only shared types: src/api and src/events.',
];
const components = [
  ['**/App', '**/App.js'],
  'Components do not import the shell (App.tsx): put what they share in its own module, as filter.ts.',
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'web/dist/**',
      'node_modules/**',
      'bin/**',
      'bench/**',
      'coverage/**',
      // Scripts the gate's corpus runs (src/policy/corpus): data, some deliberately destructive.
      'src/policy/corpus/files/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '^(fs|path|os|child_process|crypto|net|http|url|util|events|stream|readline|timers)(/.*)?$',
              message: 'Use the node: prefix.',
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['src/events/**', 'src/api/**', 'src/shared/**'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(shared) },
  },
  {
    files: [
      'src/agents/**',
      'src/store/**',
      'src/worktrees/**',
      'src/bus/**',
      'src/scheduler/**',
      'src/review/**',
      'src/environments/**',
      'src/tasks/**',
      'src/policy/**',
    ],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(middle) },
  },
  // The context domain sits below sessions (the ingestor writes its index); its tests may drive the ingestor.
  {
    files: ['src/context/**'],
    ignores: ['src/context/**/*.test.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(middle) },
  },
  { files: ['src/mcp/**'], rules: { '@typescript-eslint/no-restricted-imports': restrict(mcp) } },
  {
    files: ['src/cli/**', 'src/board/**'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(cli) },
  },
  {
    files: ['src/cli/commands/**'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(cli, commands) },
  },
  { files: ['web/**'], rules: { '@typescript-eslint/no-restricted-imports': restrict(web) } },
  {
    files: ['web/src/components/**'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(web, components) },
  },
  {
    files: ['**/*.test.ts', 'test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
