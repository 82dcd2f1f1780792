// ESLint (flat config) with typescript-eslint's type-aware rules: `npm run lint`, part of `npm test`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'vscode-extension/',
      'admin/',
      'test/fixtures/',
      'examples/',
      'types/',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-nested-ternary': 'error',
    },
  },
  {
    // Tests: chai's property assertions (`.to.be.true`) are expressions; tests match terminal escapes
    // and read arbitrary JSON documents.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-expressions': 'off',
      'no-control-regex': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // A hook at a file's top level is a root hook: it runs once when the whole run starts (before every file's
      // tests, tokens signed an hour before they are used) and for runs that leave the file's tests out.
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'Program > ExpressionStatement > CallExpression[callee.name=/^(before|after|beforeEach|afterEach)$/]',
          message: 'A hook at the top level runs for the whole run: put it inside the describe it serves.',
        },
      ],
    },
  },
);
