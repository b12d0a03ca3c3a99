// @ts-check
import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default defineConfig(
  { ignores: ['**/dist/'] },
  js.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // A variable a closure reads before its one assignment (a listener made after the app that reports it).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      // One program for sources and tests: it maps @svc/* to their sources, as vitest does.
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // `{ dropped: _, ...kept }` names what it leaves out.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, varsIgnorePattern: '^_', argsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      // Async without await is how a function keeps a Promise contract (Fastify hooks, ports, stubs) and turns throws into rejections.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The web UI is a browser program with its own compiler options.
    files: ['packages/web/src/**/*.ts', 'packages/web/src/**/*.tsx', 'packages/web/bench/**/*.tsx', 'packages/web/vite.config.ts'],
    languageOptions: {
      globals: globals.browser,
      parserOptions: { project: './packages/web/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // Tests read JSON replies whose shape is what they assert: `any` is the honest type there.
    files: ['**/*.test.ts', '**/*.test.tsx', 'packages/*/test/**/*.ts', 'packages/test-kit/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
)
