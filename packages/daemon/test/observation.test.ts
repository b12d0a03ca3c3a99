import { execFileSync } from 'node:child_process'
import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { completeLines, tempHomes, waitFor, makeRepo, startSessionDaemon, tmux, waitForSession } from '@svc/test-kit'

const homes = tempHomes()
afterAll(homes.release)

/** A `tmux` first on PATH that logs each invocation's (first) command, then runs the real one. */
async function countingTmux(dir: string): Promise<{ bin: string; log: string }> {
  const real = execFileSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).trim()
  const bin = join(dir, 'bin')
  const log = join(dir, 'tmux-calls.log')
  await mkdir(bin)
  // The daemon runs `tmux -u -S <socket> <command> ...`.
  await writeFile(join(bin, 'tmux'), `#!/bin/sh\necho "$4" >> '${log}'\nexec '${real}' "$@"\n`)
  await chmod(join(bin, 'tmux'), 0o755)
  await writeFile(log, '')
  return { bin, log }
}

/** The first command of a poll's one tmux process (it lists clients, then panes). */
const POLL = 'list-clients'

/** The tmux commands logged so far, one per line. */
const calls = completeLines

it('costs one tmux process per tick for idle sessions, plus one capture for panes that changed', async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  const shim = await countingTmux(dir)
  const interval = 250
  const daemon = await startSessionDaemon({
    home: join(dir, 'svc'),
    env: { PATH: `${shim.bin}:${process.env.PATH}` },
    settings: { daemon_poll_interval: `${interval}ms` },
  })
  const titles = Array.from({ length: 8 }, (_, i) => `idle-${i}`)
  for (const title of titles) await daemon.client.call('CreateSession', { repo_path: repo, title, program: 'sleep 600' })
  for (const title of titles) await waitForSession(daemon, title, (s) => s.liveness_name === 'ready')

  const start = (await calls(shim.log)).length
  const began = Date.now()
  await new Promise((resolve) => setTimeout(resolve, 12 * interval))
  const idle = (await calls(shim.log)).slice(start)
  const ticks = (Date.now() - began) / interval
  expect(idle.every((command) => command === POLL)).toBe(true)
  expect(idle.length).toBeGreaterThanOrEqual(ticks / 3)
  expect(idle.length).toBeLessThanOrEqual(ticks + 1)

  // One pane changes: the tick that sees it adds exactly one capture process for it.
  const beforeChange = (await calls(shim.log)).length
  const busy = (await daemon.client.call('Snapshot', {})).instances[0]?.tabs[0]?.tmux_name as string
  tmux(daemon.home, 'respawn-pane', '-k', '-t', `=${busy}:`, "sh -c 'echo one; sleep 0.3; echo two; sleep 600'")
  await waitFor(async () => ((await calls(shim.log)).slice(beforeChange).includes('display-message') ? true : undefined))
  const around = (await calls(shim.log)).slice(beforeChange).filter((command) => command !== 'respawn-pane')
  expect(around.filter((command) => command === 'display-message').length).toBeLessThanOrEqual(around.filter((c) => c === POLL).length)
})
