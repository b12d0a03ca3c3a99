import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, it, vi } from 'vitest'
import { alive, procState } from './alive.js'

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

it('reads the state after the command name, which may hold spaces and parentheses', () => {
  expect(procState('1234 (node) S 1 1234 1234 0 -1')).toBe('S')
  expect(procState('77 (a) b) Z c) Z 1 77 77')).toBe('Z')
  expect(procState('')).toBeUndefined()
})

// A real zombie: the shell backgrounds a short sleep, then becomes a long sleep that never reaps it.
it.runIf(existsSync('/proc/self/stat'))('counts a zombie (exited, not yet reaped) as gone', async () => {
  const parent = spawn('/bin/sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] })
  try {
    const [line] = (await once(parent.stdout, 'data')) as [Buffer]
    const child = Number(line.toString().trim())
    await vi.waitFor(() => expect(procState(readFileSync(`/proc/${child}/stat`, 'utf8'))).toBe('Z'), { timeout: 5_000 })
    expect(() => process.kill(child, 0)).not.toThrow()
    expect(alive(child)).toBe(false)
    expect(alive(parent.pid as number)).toBe(true)
  } finally {
    parent.kill('SIGKILL')
  }
})
