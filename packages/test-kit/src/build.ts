import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Integration tests spawn the built daemon and CLI, and browsers load the built web UI: build first. */
export default function setup(): void {
  const root = fileURLToPath(new URL('../../..', import.meta.url))
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-b'], { cwd: root, stdio: 'inherit' })
  const web = fileURLToPath(new URL('../../web/', import.meta.url))
  const vite = join(dirname(createRequire(`${web}package.json`).resolve('vite/package.json')), 'bin/vite.js')
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: web, stdio: 'inherit' })
}
