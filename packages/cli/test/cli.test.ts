import { existsSync } from 'node:fs'
import { readdir, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { createServer as createSocketServer } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { catalog, REMOVED_KEYS, servicePaths } from '@svc/protocol'
import { runCli, startDaemon, tempHomes } from '@svc/test-kit'
import { runInTerminal } from './terminal.js'

const homes = tempHomes()
const home = homes.make
afterEach(homes.release)

async function withConfig(dir: string): Promise<Record<string, string>> {
  await writeFile(join(dir, 'config.json'), JSON.stringify({ network: { listen_addr: '' } }))
  return { SERVICE_HOME: dir }
}

describe('svc routes', () => {
  it('prints the catalog and the resolved socket path without creating or dialing anything', async () => {
    const dir = join(await home(), 'never-created')
    const result = await runCli(['routes', '--json'], { SERVICE_HOME: dir })
    expect(result.code).toBe(0)
    const printed = JSON.parse(result.stdout)
    expect(printed.socket).toBe(join(dir, 'daemon-http.sock'))
    expect(printed.routes.map((route: { name: string }) => route.name)).toEqual(catalog().map((route) => route.name))
    expect(printed.routes[0]).toEqual({
      name: 'Health',
      method: 'GET',
      path: '/v1/health',
      group: 'health',
      summary: expect.any(String),
    })
    expect(existsSync(dir)).toBe(false)
  })

  it('never dials the socket, even when something listens there', async () => {
    const dir = await home()
    const socket = servicePaths(dir).socket
    let connections = 0
    const listener = createSocketServer((connection) => {
      connections++
      connection.destroy()
    })
    await new Promise<void>((resolve) => listener.listen(socket, resolve))
    try {
      const before = (await readdir(dir)).sort()
      for (const args of [['routes'], ['routes', '--json']]) {
        const result = await runCli(args, { SERVICE_HOME: dir })
        expect(result.code, result.stderr).toBe(0)
        expect(result.stdout).toContain(socket)
      }
      expect(connections).toBe(0)
      expect((await readdir(dir)).sort()).toEqual(before)
    } finally {
      listener.close()
    }
  })

  it('prints a table for people', async () => {
    const dir = join(await home(), 'x')
    const out = (await runInTerminal(['routes'], { SERVICE_HOME: dir })).out
    expect(out).toContain(`socket: ${join(dir, 'daemon-http.sock')}`)
    expect(out).toMatch(/NAME\s+METHOD\s+PATH\s+GROUP\s+SUMMARY/)
    expect(out).toMatch(/Snapshot\s+POST\s+\/v1\/Snapshot\s+sessions/)
  })
})

describe('help and usage', () => {
  it('prints help for the program and each command', async () => {
    const top = await runCli(['--help'], {})
    expect(top.code).toBe(0)
    expect(top.stdout).toContain('Usage: svc')
    for (const command of ['routes', 'daemon', 'sessions', 'tabs', 'projects', 'programs', 'backends', 'config', 'health']) {
      expect(top.stdout).toContain(command)
    }
    const list = await runCli(['sessions', 'list', '--help'], {})
    expect(list.code).toBe(0)
    expect(list.stdout).toContain('--status <state>')
    expect((await runCli(['config', 'set', '--help'], {})).stdout).toContain('Usage: svc config set [options] <key> <value>')
    const close = (await runCli(['tabs', 'close', '--help'], {})).stdout
    expect(close).toContain('Usage: svc tabs close [options] <title>')
    for (const option of ['--tab-id <id>', '--name <name>', '--index <n>', '--repo-id <id>', '--id <id>']) expect(close).toContain(option)
    const create = (await runCli(['sessions', 'create', '--help'], {})).stdout
    expect(create).toContain('Usage: svc sessions create [options] [title]')
    expect(create).toContain('svc sessions create fix-parser --prompt')
  })

  it('exits 2 on usage errors without starting a daemon', async () => {
    const dir = await home()
    for (const args of [['bogus'], ['sessions', 'list', '--limit', 'x'], ['config', 'set', 'only-key'], ['daemon', 'logs', '-n', '-1']]) {
      const result = await runCli(args, { SERVICE_HOME: dir })
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toMatch(/error/)
    }
    expect(existsSync(servicePaths(dir).socket)).toBe(false)
  })

  it('exits 2 when a session, tab or project command is given the wrong flags, naming the choice', async () => {
    const dir = await home()
    const cases: Array<[string[], string]> = [
      [['tabs', 'close', 't'], 'use exactly one of --tab-id, --name, --index'],
      [['tabs', 'rename', 't', '--name', 'a', '--index', '1', 'b'], 'use exactly one of --tab-id, --name, --index'],
      [['tabs', 'create', 't', '--shell', '--port', '3'], 'use at most one of --shell, --command, --web, --port, --editor'],
      [['tabs', 'move', 't', '--index', '1', 'second'], "error: command-argument value 'second' is invalid"],
      [['sessions', 'create', '--title', 'a', '--title-base', 'b'], 'use at most one of --title, --title-base'],
      [['sessions', 'create', 'a', '--title-base', 'b'], 'use at most one of --title, --title-base'],
      [['sessions', 'create', 'one', '--title', 'other'], 'two titles given: "one" and --title "other"; give one'],
      [['sessions', 'create', 'one', 'two'], 'too many arguments'],
      [['sessions', 'send', 't'], "error: missing required argument 'prompt'"],
      [['projects', 'remove'], 'use exactly one of <path>, --repo-id'],
      [['sessions', 'attach', 't'], 'svc sessions attach needs a terminal, and stdin is not one'],
    ]
    const results = await Promise.all(cases.map(([args]) => runCli(args, { SERVICE_HOME: dir })))
    results.forEach((result, n) => {
      const [args, message] = cases[n] as [string[], string]
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr, args.join(' ')).toContain(message)
    })
    expect(existsSync(servicePaths(dir).socket)).toBe(false)
  })

  it('refuses --auto-yes on any command as a usage error, with the guidance, without starting a daemon', async () => {
    const dir = await home()
    const cases = [
      ['sessions', 'create', '--auto-yes'],
      ['sessions', 'create', '--title', 'a', '--auto-yes'],
      ['--auto-yes', 'health'],
      ['tasks', 'add', '--cron', '* * * * *', '--auto-yes=true'],
      ['config', 'get', '--auto-yes'],
    ]
    const results = await Promise.all(cases.map((args) => runCli(args, { SERVICE_HOME: dir })))
    results.forEach((result, n) => {
      const args = (cases[n] as string[]).join(' ')
      expect(result.code, args).toBe(2)
      expect(result.stderr, args).toBe(`svc: --auto-yes: ${REMOVED_KEYS.auto_yes}\n`)
    })
    expect(existsSync(servicePaths(dir).socket)).toBe(false)
    expect((await runCli(['sessions', 'create', '--help'], {})).stdout).not.toContain('auto-yes')
  })

  it('exits 2 on a bad SERVICE_HOME', async () => {
    const result = await runCli(['health'], { SERVICE_HOME: '~nobody/svc' })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('"~user" is not supported')
  })
})

describe('the daemon on demand', () => {
  it('starts the daemon when the socket is absent', async () => {
    const env = await withConfig(await home())
    const result = await runCli(['health'], env)
    expect(result.code).toBe(0)
    // The first answer may come while the new daemon is still restoring its state.
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, phase: expect.stringMatching(/^(warming|ready)$/) })
    expect(existsSync(servicePaths(env.SERVICE_HOME as string).socket)).toBe(true)
  })

  it('daemon status never starts it and exits 3 when it is down', async () => {
    const env = await withConfig(await home())
    const result = await runCli(['daemon', 'status'], env)
    expect(result.code).toBe(3)
    expect(JSON.parse(result.stdout)).toMatchObject({ running: false })
    expect(existsSync(servicePaths(env.SERVICE_HOME as string).socket)).toBe(false)
  })

  it('daemon start, status, logs and stop', async () => {
    const env = await withConfig(await home())
    const started = JSON.parse((await runCli(['daemon', 'start'], env)).stdout)
    expect(started).toMatchObject({ started: true, ok: true })
    expect(JSON.parse((await runCli(['daemon', 'start'], env)).stdout)).toMatchObject({ started: false, pid: started.pid })
    expect(JSON.parse((await runCli(['daemon', 'status'], env)).stdout)).toMatchObject({ running: true, pid: started.pid })
    const logs = await runCli(['daemon', 'logs', '-n', '2'], env)
    expect(logs.code).toBe(0)
    expect(logs.stdout.trim().split('\n')).toHaveLength(2)
    expect((await runInTerminal(['daemon', 'logs', '-n', '1'], env)).out).toMatch(/^\d{4}-\d{2}-\d{2}T\S+ INFO /)
    expect(JSON.parse((await runCli(['daemon', 'stop'], env)).stdout)).toEqual({ stopped: true })
    expect(existsSync(servicePaths(env.SERVICE_HOME as string).socket)).toBe(false)
    expect(JSON.parse((await runCli(['daemon', 'stop'], env)).stdout)).toEqual({ stopped: false })
  })

  it('exits 3 when the daemon cannot be started, saying why', async () => {
    const dir = await home()
    await writeFile(join(dir, 'file'), '')
    const result = await runCli(['health'], { SERVICE_HOME: join(dir, 'file', 'svc') })
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('the daemon failed to start')
    expect(result.stderr).toContain('ENOTDIR')
  })
})

describe('commands against a running daemon', () => {
  it('lists sessions with filters, as JSON or a table', async () => {
    const daemon = await startDaemon({ home: await home() })
    const env = { SERVICE_HOME: daemon.home }
    const result = await runCli(['sessions', 'list', '--live', '--status', 'ready', '--status', 'lost', '--since', '2h', '--limit', '5'], env)
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ instances: [], boot_id: expect.any(String) })
    expect((await runInTerminal(['sessions', 'list'], env)).out).toContain('no sessions')
    const refused = await runCli(['sessions', 'list', '--status', 'sleeping'], env)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('unknown status "sleeping"')
  })

  // Eight CLI runs, each a node start: slow on a loaded machine.
  it('gets, sets and unsets config', { timeout: 60_000 }, async () => {
    const daemon = await startDaemon({ home: await home() })
    const env = { SERVICE_HOME: daemon.home }
    const set = await runCli(['config', 'set', 'branch_prefix', 'bots/'], env)
    expect(set.code).toBe(0)
    expect(JSON.parse(set.stdout)).toMatchObject({ key: 'branch_prefix', value: 'bots/', applies: 'next-start' })
    expect((await runInTerminal(['config', 'set', 'branch_prefix', 'bots/'], env)).out).toContain(
      'branch_prefix = bots/ (takes effect on the next daemon start)',
    )
    expect(JSON.parse((await runCli(['config', 'get', 'branch_prefix'], env)).stdout).value).toBe('bots/')
    await runCli(['config', 'set', 'program_overrides.codex', 'codex --full-auto'], env)
    expect((await runInTerminal(['config', 'get', 'program_overrides.codex'], env)).out).toBe('codex --full-auto\n')
    expect((await runCli(['config', 'unset', 'branch_prefix'], env)).code).toBe(0)
    expect(JSON.parse((await runCli(['config', 'get', 'branch_prefix'], env)).stdout).value).not.toBe('bots/')
    const table = (await runInTerminal(['config', 'get'], env)).out
    expect(table).toMatch(/KEY\s+VALUE\s+SOURCE\s+DEFAULT\s+TYPE\s+PURPOSE/)
    expect(table).toMatch(/^program_overrides\s+\{"codex":"codex --full-auto"\}\s+global\s/m)
    expect(table).toMatch(/^log_max_backups\s+3\s+default\s/m)
    expect(table).toContain('daemon_poll_interval')

    const bad = await runCli(['config', 'set', 'daemon_poll_interval', 'soon'], env)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('daemon_poll_interval: expected a duration')
    // A tokenless network bind needs the token turned off on purpose, and is then warned about.
    expect((await runCli(['config', 'set', 'network.require_token', 'false'], env)).code).toBe(0)
    const warned = await runCli(['config', 'set', 'network.listen_addr', '0.0.0.0:0'], env)
    expect(warned.code).toBe(0)
    expect(warned.stderr).toContain('warning: network.listen_addr 0.0.0.0:0 makes the control API reachable')
  })
})

describe('version skew', () => {
  it('reports a 400 naming an unknown field as version skew, with the fix', async () => {
    const dir = await home()
    const seen: IncomingHttpHeaders[] = []
    // An older daemon: it decodes strictly and does not know a field this client sends.
    const older = createServer((request, response) => {
      seen.push(request.headers)
      response.writeHead(request.url === '/v1/health' ? 200 : 400, { 'content-type': 'application/json' })
      response.end(
        request.url === '/v1/health'
          ? JSON.stringify({ data: { ok: true, pid: 1 }, error: null })
          : JSON.stringify({ data: null, error: { message: 'malformed JSON request body: json: unknown field "since"', daemon_rejected: true } }),
      )
    })
    await new Promise<void>((resolve) => older.listen(servicePaths(dir).socket, resolve))
    try {
      const result = await runCli(['sessions', 'list'], { SERVICE_HOME: dir })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain('version skew: the running daemon does not know the field "since"')
      expect(result.stderr).toContain('svc daemon stop && svc daemon start')
      expect(seen.every((headers) => typeof headers['x-svc-client-version'] === 'string')).toBe(true)
    } finally {
      older.close()
    }
  })
})
