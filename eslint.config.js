// Type-aware lint. The dependency direction (see CONTRIBUTING.md) is enforced here too.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (patterns, message) => ['error', { patterns: [{ group: patterns, message }] }];

export default tseslint.config(
  { ignores: ['dist/**', 'web/dist/**', 'node_modules/**', 'bin/**', 'bench/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', '*.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(fs|path|os|child_process|crypto|net|http|url|util|events|stream|readline|timers)(/.*)?$', message: 'Use the node: prefix.' }] },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['src/events/**', 'src/api/**', 'src/shared/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(
        ['**/sessions/**', '**/server/**', '**/cli/**', '**/store/**', '**/agents/**', '**/worktrees/**'],
        'Shared types and helpers depend on nothing above them.',
      ),
    },
  },
  {
    files: ['src/cli/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(
        ['**/store/**', '**/sessions/host*', '**/agents/**'],
        'The CLI is a thin client of the supervisor API: import api/, events/ and shared/ only.',
      ),
    },
  },
  {
    files: ['web/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(
        ['**/src/sessions/**', '**/src/server/**', '**/src/cli/**', '**/src/store/**', '**/src/agents/**', '**/src/worktrees/**', '**/src/shared/**'],
        'The web UI imports only shared types: src/api and src/events.',
      ),
    },
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
