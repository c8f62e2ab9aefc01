// Code gates: type-aware typescript-eslint over every TypeScript tree. Layering (which layer
// may import what) and import cycles are checked by scripts/dev/lint.ts (eslint-plugin-import-x's
// no-cycle needs unrs-resolver, whose platform packages npm cannot lock here); formatting by
// prettier (see .prettierrc).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'native/build/', '.cache/', '.tap/', 'runtime/launcher.cjs'] },
  {
    files: ['{lib,plugins,tools,runtime,test-support,e2e,bench,scripts,deploy}/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // tap queues a subtest (and t.rejects/t.resolves) and ends the parent only after it settles:
      // those promises are awaited by the runner, not dropped.
      // Handlers and tap callbacks implement an async contract; some are synchronous inside.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: '@tapjs/test', name: ['test'] },
            { from: 'package', package: '@tapjs/asserts', name: ['rejects', 'resolves'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/max-params': ['error', { max: 4 }],
      // `_name` marks a parameter a signature requires; `{ drop: _, ...rest }` omits a key.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Tests read plugins' JSON output, whose shape is what the assertion checks, so `any` from
    // JSON.parse is the input under test there; and tap callbacks are async by convention.
    files: ['**/*.test.ts', 'e2e/**/*.ts', 'test-support/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  prettier,
);
