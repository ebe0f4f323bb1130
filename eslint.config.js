// Type-aware lint. The dependency direction (see CONTRIBUTING.md) is enforced here too.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layersRule } from './scripts/layers-rule.mjs';

// Each entry is [glob patterns, message]; a file gets one list, since a later block replaces the rule.
const restrict = (...rules) => ['error', { patterns: rules.map(([group, message]) => ({ group, message })) }];
const commands = [
  ['**/main', '**/main.js', '**/sessions', '**/sessions.js'],
  'Commands import cli/ modules (connect.ts, flags.ts), not main.ts or commands/sessions.ts.',
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
      // The codex tests' CODEX_HOMEs (test/support/model-server/env.ts), made while the lint runs beside them.
      '.baton-test-*/**',
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
  // The layer table (scripts/layers.mjs): a folder imports its own layer or lower, and another
  // domain only through its index.ts. Generated from the same table as CONTRIBUTING's diagram.
  {
    files: ['src/**/*.ts', 'src/**/*.tsx', 'web/src/**/*.ts', 'web/src/**/*.tsx'],
    plugins: { baton: { rules: { layers: layersRule } } },
    rules: { 'baton/layers': 'error' },
  },
  {
    files: ['src/cli/commands/**'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(commands) },
  },
  {
    files: ['web/src/components/**'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(components) },
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
