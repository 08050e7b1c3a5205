// ESLint for the frontend (`npm run lint`, part of `make test`): the
// recommended JS and type-aware typescript-eslint rules, and React's rules of
// hooks. Generated code is not ours to lint: wailsjs/ (Wails), src/gen/
// (backend/tsgen, `make types`), dist/ (Vite).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'wailsjs/', 'src/gen/', 'node_modules/'] },
  {
    files: ['src/**/*.{ts,tsx}', 'vite.config.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      globals: globals.browser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      // The two rules of hooks. (The plugin's recommended set also brings
      // the React Compiler's rules; Weft does not build with the compiler.)
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      // No `this` anywhere: store actions, props callbacks and the api
      // object are closures, so passing one around cannot lose a receiver,
      // and unbound-method (which asks for this-free signatures) has nothing
      // to guard.
      'no-restricted-syntax': ['error', { selector: 'ThisExpression', message: 'Weft\'s frontend uses closures, not `this` (see eslint.config.js: unbound-method is off).' }],
      '@typescript-eslint/unbound-method': 'off',
      // tsc checks unused names (tsconfig.json: noUnusedLocals,
      // noUnusedParameters), on `npm run build`: one place.
      '@typescript-eslint/no-unused-vars': 'off',
    },
  },
  {
    files: ['src/**/*.test.{ts,tsx}', 'src/test/**'],
    rules: {
      // Test doubles stand in for async api methods (`vi.fn(async () => x)`)
      // and `await act(async () => …)` flushes React's work: async without
      // await is the point there.
      '@typescript-eslint/require-await': 'off',
      // vitest types its asymmetric matchers (expect.objectContaining, …)
      // and an untyped vi.fn()'s calls as any; the app code keeps these.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // jsdom lacks ResizeObserver and DOMMatrixReadOnly: their stand-ins are
    // classes, so `this` (and the rule it makes safe) is back here.
    files: ['src/test/**'],
    rules: {
      'no-restricted-syntax': 'off',
      '@typescript-eslint/unbound-method': 'error',
    },
  },
);
