import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const source = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url))

export default defineConfig({
  resolve: {
    // Unit tests run the sources; integration tests spawn the built daemon and CLI.
    alias: {
      '@svc/protocol/browser': fileURLToPath(new URL('./packages/protocol/src/browser.ts', import.meta.url)),
      '@svc/protocol': source('protocol'),
      '@svc/core': source('core'),
      '@svc/daemon': source('daemon'),
      '@svc/tui/attached-terminal': fileURLToPath(new URL('./packages/tui/src/attached-terminal.ts', import.meta.url)),
      '@svc/tui': source('tui'),
      '@svc/test-kit': source('test-kit'),
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.{ts,tsx}', 'packages/*/test/**/*.test.ts'],
    globalSetup: ['./packages/test-kit/src/build.ts'],
    // Generous: on two shared cores a daemon start or a CLI run can take seconds; a hang still fails.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Integration tests mostly wait on daemons, git and tmux: a few files at a time fit two cores.
    maxWorkers: 3,
  },
})
