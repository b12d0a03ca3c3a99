import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { createClient, DAEMON_EXIT, procState, servicePaths } from '@svc/protocol'
import { DAEMON_MAIN, runCli, send, startDaemon, tempHomes, waitFor, makeRepo, startSessionDaemon } from '@svc/test-kit'

const homes = tempHomes()
const home = homes.make
afterEach(homes.release)

function runDaemonSync(env: Record<string, string>) {
  return spawnSync(process.execPath, [DAEMON_MAIN], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 })
}

interface Starter {
  child: ChildProcess
  stderr: () => string
}

/** Starts `count` daemons on one home at once, as a burst of `svc` commands would. */
function startAtOnce(dir: string, count: number): Starter[] {
  return Array.from({ length: count }, () => {
    const child = spawn(process.execPath, [DAEMON_MAIN], {
      env: { ...process.env, SERVICE_HOME: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    return { child, stderr: () => stderr }
  })
}

const running = (starter: Starter) => starter.child.exitCode === null && starter.child.signalCode === null

/** A pid no process has any more. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid
}

describe('state directory', () => {
  it('binds the socket at mode 0600 and writes daemon.pid and the lock', async () => {
    const daemon = await startDaemon({ home: await home() })
    expect((await stat(daemon.paths.socket)).mode & 0o777).toBe(0o600)
    expect((await stat(daemon.paths.socket)).isSocket()).toBe(true)
    expect((await readFile(daemon.paths.pid, 'utf8')).trim()).toBe(String(daemon.process.pid))
    expect((await readFile(daemon.paths.lock, 'utf8')).trim()).toBe(String(daemon.process.pid))
    expect((await stat(daemon.paths.token)).mode & 0o777).toBe(0o600)
    expect((await readFile(daemon.paths.token, 'utf8')).trim()).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const log = await readFile(daemon.paths.log, 'utf8')
    expect(JSON.parse(log.split('\n')[0] as string)).toHaveProperty('level')
  })

  it('expands a leading ~/ in SERVICE_HOME', async () => {
    const fakeHome = await home()
    const daemon = await startDaemon({ home: join(fakeHome, 'state'), env: { HOME: fakeHome, SERVICE_HOME: '~/state' } })
    expect(existsSync(join(fakeHome, 'state', 'daemon-http.sock'))).toBe(true)
    expect((await daemon.client.call('Health')).ok).toBe(true)
  })

  it('refuses ~user in SERVICE_HOME with a clear message', async () => {
    const result = runDaemonSync({ SERVICE_HOME: '~root/state' })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('"~user" is not supported')
  })

  it('refuses a SERVICE_HOME whose socket path exceeds 107 bytes, naming path, length and fix', async () => {
    const base = await home()
    const long = join(base, 'x'.repeat(107 - base.length - '/daemon-http.sock'.length))
    expect(Buffer.byteLength(join(long, 'daemon-http.sock'))).toBe(108)
    const result = runDaemonSync({ SERVICE_HOME: long })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain(`${join(long, 'daemon-http.sock')} is 108 bytes`)
    expect(result.stderr).toContain('set SERVICE_HOME to a shorter directory')
    expect(existsSync(long)).toBe(false)

    const fits = long.slice(0, -1)
    const daemon = await startDaemon({ home: fits })
    expect(Buffer.byteLength(daemon.paths.socket)).toBe(107)
  })
})

describe('singleton lock and stale files', () => {
  it('refuses a second daemon on the same home with a clear message', async () => {
    const first = await startDaemon({ home: await home() })
    const second = runDaemonSync({ SERVICE_HOME: first.home })
    expect(second.status).toBe(DAEMON_EXIT.alreadyRunning)
    expect(second.stderr).toContain(`another svc daemon (pid ${first.process.pid}) is already running`)
    expect((await first.client.call('Health')).pid).toBe(first.process.pid)
  })

  it('takes over a lock and socket left by a killed daemon', async () => {
    const first = await startDaemon({ home: await home() })
    await first.stop('SIGKILL')
    expect(existsSync(first.paths.lock)).toBe(true)
    expect(existsSync(first.paths.socket)).toBe(true)
    const second = await startDaemon({ home: first.home })
    expect((await second.client.call('Health')).pid).toBe(second.process.pid)
  })

  it.runIf(existsSync('/proc/self/stat'))('takes over the lock of a killed daemon that is still a zombie (its parent has not reaped it)', async () => {
    const dir = await home()
    await writeFile(join(dir, 'config.json'), JSON.stringify({ network: { listen_addr: '' } }))
    // The shell becomes a sleep that never reaps the daemon it started in the background.
    const parent = spawn('/bin/sh', ['-c', `"${process.execPath}" "${DAEMON_MAIN}" & exec sleep 60`], {
      env: { ...process.env, SERVICE_HOME: dir },
      stdio: 'ignore',
    })
    try {
      const { pid } = await waitFor(() => createClient({ socketPath: servicePaths(dir).socket }).call('Health').catch(() => undefined), 20_000)
      process.kill(pid, 'SIGKILL')
      await waitFor(() => procState(readFileSync(`/proc/${pid}/stat`, 'utf8')) === 'Z')
      const second = await startDaemon({ home: dir })
      expect((await second.client.call('Health')).pid).toBe(second.process.pid)
    } finally {
      parent.kill('SIGKILL')
    }
  })

  const homesToRace: Array<[string, (() => string) | undefined]> = [
    ['a fresh home', undefined],
    ['a lock left by a killed daemon', () => `${deadPid()}\n`],
    ['an empty lock', () => ''],
  ]
  it.each(homesToRace)('on %s, exactly one of five daemons started at once keeps running', async (_label, staleLock) => {
    const dir = await home()
    await writeFile(join(dir, 'config.json'), JSON.stringify({ network: { listen_addr: '' } }))
    if (staleLock) await writeFile(join(dir, 'daemon.lock'), staleLock())
    const starters = startAtOnce(dir, 5)
    try {
      await waitFor(() => starters.filter(running).length === 1, 20_000)
      const [winner] = starters.filter(running) as [Starter]
      const health = await waitFor(() => createClient({ socketPath: servicePaths(dir).socket }).call('Health').catch(() => undefined), 20_000)
      expect(health.pid).toBe(winner.child.pid)
      for (const loser of starters.filter((starter) => starter !== winner)) {
        expect(loser.child.exitCode, loser.stderr()).toBe(DAEMON_EXIT.alreadyRunning)
        expect(loser.stderr()).toContain(`another svc daemon (pid ${winner.child.pid}) is already running on ${dir}`)
      }
      expect((await readFile(join(dir, 'daemon.lock'), 'utf8')).trim()).toBe(String(winner.child.pid))
      expect((await readdir(dir)).filter((name) => name.startsWith('daemon.lock'))).toEqual(['daemon.lock'])
    } finally {
      await Promise.all(starters.filter(running).map((starter) => (starter.child.kill(), once(starter.child, 'exit'))))
    }
  })

  it('unlinks a stale socket file before binding', async () => {
    const dir = await home()
    const paths = servicePaths(dir)
    const stale = createServer()
    await new Promise<void>((resolve) => stale.listen(paths.socket, resolve))
    // Closing a listening net server removes its file; a crashed process leaves it behind.
    await new Promise<void>((resolve) => stale.close(() => resolve()))
    await writeFile(paths.socket, 'not a socket')
    const daemon = await startDaemon({ home: dir })
    expect((await stat(daemon.paths.socket)).isSocket()).toBe(true)
  })
})

describe('shutdown', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('on %s closes the listeners, removes the socket and releases the lock', async (signal) => {
    const daemon = await startDaemon({ home: await home(), config: { network: { listen_addr: '127.0.0.1:0' } } })
    const port = Number((await daemon.client.call('Health')).listeners.tcp_bound_addr.split(':').pop())
    expect(await daemon.stop(signal)).toBe(0)
    expect(existsSync(daemon.paths.socket)).toBe(false)
    expect(existsSync(daemon.paths.lock)).toBe(false)
    expect(existsSync(daemon.paths.pid)).toBe(false)
    await expect(send({ host: '127.0.0.1', port }, 'GET', '/v1/health')).rejects.toThrow(/ECONNREFUSED/)
    const next = await startDaemon({ home: daemon.home })
    expect((await next.client.call('Health')).ok).toBe(true)
  })
})

describe('warm-up', () => {
  it('binds before restoring: health at once, session routes 503 until ready', async () => {
    const dir = await home()
    const gate = join(dir, 'restore-gate')
    await writeFile(gate, '')
    const daemon = await startDaemon({ home: join(dir, 'state'), env: { SVC_RESTORE_GATE: gate }, waitReady: false })

    const health = await send(daemon.socket, 'GET', '/v1/health')
    expect(health.json.data.phase).toBe('warming')
    for (const route of ['/v1/Snapshot', '/v1/SuggestSessionName']) {
      const reply = await daemon.post(route, {})
      expect(reply.status).toBe(503)
      expect(reply.json).toEqual({
        data: null,
        error: { message: 'the daemon is starting (restoring sessions); retry shortly', daemon_rejected: true },
      })
    }
    expect((await daemon.post('/v1/GetConfig', {})).status).toBe(200)

    await unlink(gate)
    await waitFor(async () => (await daemon.client.call('Health')).phase === 'ready')
    const snapshot = await daemon.post('/v1/Snapshot', {})
    expect(snapshot.status).toBe(200)
    expect(snapshot.json.data.boot_id).toBe(health.json.data.boot_id)
  })

  it('restores stored sessions while warming and opens with them; a CLI started meanwhile waits', async () => {
    const dir = await home()
    const repo = await makeRepo(dir)
    const first = await startSessionDaemon({ home: join(dir, 'svc') })
    await first.client.call('CreateSession', { repo_path: repo, title: 'kept' })
    await first.stop()

    const gate = join(dir, 'restore-gate')
    await writeFile(gate, '')
    const daemon = await startDaemon({ home: first.home, env: { SVC_RESTORE_GATE: gate }, waitReady: false })
    const warming = { data: null, error: { message: 'the daemon is starting (restoring sessions); retry shortly', daemon_rejected: true } }
    for (const [route, body] of [['/v1/Snapshot', {}], ['/v1/ListTasks', {}], ['/v1/CreateTab', { title: 'kept' }]] as const) {
      const reply = await daemon.post(route, body)
      expect([route, reply.status, reply.json]).toEqual([route, 503, warming])
    }
    const cli = runCli(['sessions', 'list', '--json'], { SERVICE_HOME: daemon.home })
    // Long enough for the CLI to be refused at least once before the gate opens.
    await sleep(1_500)
    expect((await daemon.client.call('Health')).phase).toBe('warming')

    await unlink(gate)
    const opened = await waitFor(async () => {
      const reply = await daemon.post('/v1/Snapshot', {})
      return reply.status === 503 ? undefined : reply
    })
    expect(opened.status).toBe(200)
    expect(opened.json.data.instances.map((instance: { title: string }) => instance.title)).toEqual(['kept'])
    const listed = await cli
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).instances.map((instance: { title: string }) => instance.title)).toEqual(['kept'])
  })

  it('gives each process a new boot_id', async () => {
    const daemon = await startDaemon({ home: await home() })
    const first = (await daemon.client.call('Snapshot', {})).boot_id
    await daemon.stop()
    const again = await startDaemon({ home: daemon.home })
    expect((await again.client.call('Snapshot', {})).boot_id).not.toBe(first)
  })
})

describe('a daemon that cannot start', () => {
  it('names the file and the key of a bad hand-edited config, and leaves the file alone', async () => {
    const dir = await home()
    await mkdir(dir, { recursive: true })
    const text = '{"daemon_poll_interval": "soon"}'
    await writeFile(join(dir, 'config.json'), text)
    const result = runDaemonSync({ SERVICE_HOME: dir })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain(`${join(dir, 'config.json')}: key "daemon_poll_interval"`)
    expect(await readFile(join(dir, 'config.json'), 'utf8')).toBe(text)
    expect(existsSync(join(dir, 'daemon.lock'))).toBe(false)
    expect(existsSync(join(dir, 'daemon-http.sock'))).toBe(false)
  })
})
