import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { Tmux } from '@svc/core'
import { Terminal } from './terminal.js'

const dirs: string[] = []
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))))

it('refuses input once it has ended, where node-pty would drop the keys silently, and takes a resize without a client', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-'))
  dirs.push(dir)
  // No tmux server on this socket: the client's attach fails at once and the terminal ends.
  let ended!: () => void
  const gone = new Promise<void>((resolve) => (ended = resolve))
  const terminal = new Terminal('missing', new Tmux(join(dir, 'tmux.sock')), { rows: 24, cols: 80 }, () => ended())
  await gone
  expect(terminal.alive).toBe(false)
  expect(() => terminal.input(Buffer.from('keys'))).toThrow('the terminal has exited')
  expect(() => terminal.resize(30, 100)).not.toThrow()
})

it('takes a resize at every moment of its client ending, though node-pty throws on a pty whose process has exited', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-'))
  dirs.push(dir)
  let ended = false
  const terminal = new Terminal('missing', new Tmux(join(dir, 'tmux.sock')), { rows: 24, cols: 80 }, () => (ended = true))
  // A browser resizing while the session is killed: the resize lands between the client's exit and node-pty's exit event.
  const failures: unknown[] = []
  while (!ended) {
    try {
      terminal.resize(24, 81 + (failures.length % 3))
    } catch (error) {
      failures.push(error)
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
  expect(failures).toEqual([])
})
