import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, expect, it } from 'vitest'
import { defaultSettings } from '@svc/core'
import { servicePaths, type ServicePaths } from '@svc/protocol'
import { fix, SETTLE_MS } from './fix.js'
import { readNamed } from './leftovers/named.js'
import { tmuxSessions } from './leftovers/tmux-sessions.js'

// --fix against a daemon that is making things: a tmux session found unnamed is left
// alone when a record names it by the time of the removal.

let paths: ServicePaths

afterEach(async () => {
  try {
    execFileSync('tmux', ['-S', paths.tmuxSocket, 'kill-server'], { stdio: 'ignore' })
  } catch {
    // No server left.
  }
  await rm(paths.home, { recursive: true, force: true })
})

const tmux = (...args: string[]) => execFileSync('tmux', ['-S', paths.tmuxSocket, ...args], { encoding: 'utf8' })
const alive = () => tmux('list-sessions', '-F', '#{session_name}').split('\n').filter(Boolean).sort()

/** A session record naming `tmuxName`, as the daemon saves one once a new tab's tmux session exists. */
async function saveRecord(tmuxName: string): Promise<void> {
  await mkdir(paths.sessionRecords, { recursive: true })
  const tabs = [{ id: 't', kind: 0, name: 'agent', tmux_name: tmuxName }]
  await writeFile(join(paths.sessionRecords, 's1.json'), JSON.stringify({ id: 's1', title: 't', repo_path: '/r', path: '/r-t', branch: 'b', tabs, created_at: new Date().toISOString() }))
}

async function scan() {
  const named = await readNamed(paths)
  return tmuxSessions({ paths, named, settings: defaultSettings(), repos: [], daemonRunning: true })
}

it('with the daemon running, waits out the settle time and spares what a record named meanwhile', async () => {
  paths = servicePaths(await mkdtemp('/tmp/svc-'))
  tmux('new-session', '-d', '-s', 'svc_x_made-now', 'sleep 600')
  tmux('new-session', '-d', '-s', 'svc_x_forgotten', 'sleep 600')
  const scannedAt = Date.now()
  const found = await scan()
  expect(found.map((leftover) => leftover.what).sort()).toEqual(['svc_x_forgotten', 'svc_x_made-now'])

  const fixing = fix(paths, found, scannedAt, true)
  // The daemon saves the record of the session it was making, after the scan.
  await sleep(200)
  await saveRecord('svc_x_made-now')
  const results = await fixing
  expect(Date.now() - scannedAt).toBeGreaterThanOrEqual(SETTLE_MS)
  expect(results.sort((a, b) => a.what.localeCompare(b.what))).toEqual([
    { what: 'tmux session svc_x_forgotten', result: 'removed' },
    { what: 'tmux session svc_x_made-now', result: 'named' },
  ])
  expect(alive()).toEqual(['svc_x_made-now'])
})

it('keeps a session piece while a record file does not parse: what it names is unknown', async () => {
  paths = servicePaths(await mkdtemp('/tmp/svc-'))
  tmux('new-session', '-d', '-s', 'svc_x_unknown', 'sleep 600')
  await mkdir(paths.sessionRecords, { recursive: true })
  await writeFile(join(paths.sessionRecords, 's2.json'), '{"id": "s2", "tabs": [')
  const results = await fix(paths, await scan(), Date.now(), false)
  expect(results).toEqual([{ what: 'tmux session svc_x_unknown', result: 'kept', why: expect.stringContaining('s2.json') }])
  expect(alive()).toEqual(['svc_x_unknown'])
})
