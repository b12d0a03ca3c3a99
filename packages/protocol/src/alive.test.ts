import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, it, vi } from 'vitest'
import { alive } from './alive.js'

afterEach(() => {
  vi.restoreAllMocks()
})

const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid

it('tells a running process from an exited one (ESRCH)', () => {
  expect(alive(process.pid)).toBe(true)
  expect(alive(deadPid())).toBe(false)
})

it('counts a process it may not signal (EPERM) as alive', () => {
  vi.spyOn(process, 'kill').mockImplementation(() => {
    throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' })
  })
  expect(alive(1)).toBe(true)
})

// Root may signal anyone, so the real EPERM is seen from an unprivileged child.
it.runIf(process.getuid?.() === 0)("counts another user's process as alive (real EPERM, seen as nobody)", () => {
  const built = fileURLToPath(new URL('../dist/alive.js', import.meta.url))
  const check = `import(${JSON.stringify(built)}).then(({ alive }) => process.stdout.write(String(alive(${process.pid}))))`
  const child = spawnSync(process.execPath, ['-e', check], { uid: 65534, gid: 65534, encoding: 'utf8' })
  expect(child.stderr).toBe('')
  expect(child.stdout).toBe('true')
})
