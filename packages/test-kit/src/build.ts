import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

/** Integration tests spawn the built daemon and CLI: build first (a no-op when current). */
export default function setup(): void {
  const root = fileURLToPath(new URL('../../..', import.meta.url))
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-b'], { cwd: root, stdio: 'inherit' })
}
