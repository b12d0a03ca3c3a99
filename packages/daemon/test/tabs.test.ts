import { stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { send, tempHomes, waitFor, type TestDaemon, makeRepo, session, startSessionDaemon, tmuxSessions } from '@svc/test-kit'

const FAKE_BIN = fileURLToPath(new URL('./fixtures/bin', import.meta.url))
const homes = tempHomes()
let daemon: TestDaemon
let agentTmux: string

beforeAll(async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  daemon = await startSessionDaemon({ home: join(dir, 'svc') })
  agentTmux = (await daemon.client.call('CreateSession', { repo_path: repo, title: 'tabby' })).instance.tabs[0]?.tmux_name as string
})
afterAll(homes.release)

const tabs = async () => (await session(daemon, 'tabby')).tabs
const create = (body: Record<string, unknown>) => daemon.post('/v1/CreateTab', { title: 'tabby', ...body })

describe('CreateTab', () => {
  it('sanitizes and numbers names, and names tabs by kind or command', async () => {
    const made = []
    for (const body of [{}, {}, { command: 'npm run dev -- --port 3000' }, { name: 'my tab!! (2)', shell: true }, { kind: 'web', url: 'https://example.com/docs' }]) {
      const reply = await create(body)
      expect(reply.status).toBe(200)
      made.push(reply.json.data)
    }
    expect(made.map((tab) => tab.name)).toEqual(['shell', 'shell-2', 'npm', 'my-tab-2-', 'web'])
    expect(made[2].tmux_name).toBe(`${agentTmux}__npm`)
    expect(new Set(made.map((tab) => tab.id)).size).toBe(5)
    for (const tab of made.slice(0, 4)) expect(tmuxSessions(daemon.home)).toContain(tab.tmux_name)
  })

  it('marks web tabs proxied exactly when they target loopback', async () => {
    const targets = {
      'http://localhost:8080/app': true,
      'http://app.localhost:5173': true,
      'http://127.0.0.2:3000': true,
      'http://[::1]:4000': true,
      'http://[::ffff:127.0.0.1]:3000/': true,
      'http://[::ffff:10.0.0.5]:3000/': false,
      'https://example.org': false,
      'http://10.0.0.5:8080': false,
    }
    for (const [url, proxied] of Object.entries(targets)) {
      const { id } = (await create({ kind: 'web', url })).json.data
      expect((await tabs()).find((tab) => tab.id === id)?.web_proxied, url).toBe(proxied)
    }
    const { id } = (await create({ kind: 'web', port: 9000 })).json.data
    expect((await tabs()).find((tab) => tab.id === id)).toMatchObject({ url: 'http://localhost:9000', web_proxied: true })
    for (const tab of await tabs()) if (tab.kind_name !== 'web') expect(tab).not.toHaveProperty('web_proxied')
  })

  it('refuses bad tab requests and changes nothing', async () => {
    const before = await tabs()
    const tmuxBefore = tmuxSessions(daemon.home)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ kind: 'web' }, 'exactly one of url or port'],
      [{ kind: 'web', url: 'http://a', port: 1 }, 'exactly one of url or port'],
      [{ kind: 'web', url: 'ftp://files' }, 'must start with http:// or https://'],
      [{ kind: 'web', port: 70000 }, 'out of range'],
      [{ kind: 'process', command: 'sleep 600' }, 'tab kind "process" cannot be created'],
      [{ kind: 'process' }, 'tab kind "process" cannot be created'],
      [{ kind: 'agent' }, 'tab kind "agent" cannot be created'],
      [{ kind: 'editor', port: 8080 }, 'takes no url or port'],
      [{ kind: 'editor' }, 'editor tabs need code-server or openvscode-server'],
    ]
    for (const [body, message] of cases) {
      const reply = await create(body)
      expect(reply.status, JSON.stringify(body)).toBe(500)
      expect(reply.json.error).toMatchObject({ daemon_rejected: true })
      expect(reply.json.error.message).toContain(message)
    }
    expect(await tabs()).toEqual(before)
    expect(tmuxSessions(daemon.home)).toEqual(tmuxBefore)
  })
})

describe('editor tabs', () => {
  it('serve the worktree behind a password that only the proxy presents, at an origin stable across restarts', async () => {
    const dir = await homes.make()
    const repo = await makeRepo(dir)
    const options = {
      home: join(dir, 'svc'),
      env: { PATH: `${FAKE_BIN}:${process.env.PATH}` },
      settings: { network: { listen_addr: '', preview_listen_addr: '127.0.0.1:0' } },
    }
    let withEditor = await startSessionDaemon(options)
    const { instance } = await withEditor.client.call('CreateSession', { repo_path: repo, title: 'edit' })
    const editor = await withEditor.client.call('CreateTab', { title: 'edit', kind: 'editor' })
    expect(editor).toEqual({ id: expect.any(String), name: 'editor' })
    const tab = (await session(withEditor, 'edit')).tabs.find((t) => t.id === editor.id)
    expect(tab).toMatchObject({ kind_name: 'editor', tmux_name: `${instance.tabs[0]?.tmux_name}__editor` })
    // web_proxied is for web tabs only, though an editor tab is proxied too.
    expect(tab).not.toHaveProperty('web_proxied')
    // One editor per session: it has the session's preview origin.
    const second = await withEditor.post('/v1/CreateTab', { title: 'edit', kind: 'editor' })
    expect(second.json.error.message).toBe('session "edit" has an editor tab already ("editor"); it serves the whole worktree')
    const url = new URL(tab?.url as string)
    expect(url.hostname).toBe('127.0.0.1')
    // Anyone else on the machine who finds the port meets the login wall.
    const direct = await waitFor(() => send({ host: url.hostname, port: Number(url.port) }, 'GET', '/').catch(() => undefined))
    expect(direct.status).toBe(302)
    const mirror = `/v1/webtab/${instance.id}/${editor.id}/`
    expect((await send(withEditor.socket, 'GET', mirror)).text).toBe(`editor serving ${instance.path}\n`)
    const secret = join(withEditor.home, 'editor-origin-secret')
    expect((await stat(secret)).mode & 0o777).toBe(0o600)
    const originAt = async (daemon: TestDaemon) =>
      new URL((await send(daemon.socket, 'GET', `/v1/preview-auth?session=${instance.id}&tab=${editor.id}`)).json.data.origin as string).hostname

    // The editor runs on in tmux across a daemon restart: the new daemon still holds its password and its origin.
    const before = await originAt(withEditor)
    await withEditor.stop()
    withEditor = await startSessionDaemon(options)
    expect(await originAt(withEditor)).toBe(before)
    expect((await send(withEditor.socket, 'GET', mirror)).text).toBe(`editor serving ${instance.path}\n`)
  }, 60_000)
})

describe('CloseTab, RenameTab, ReorderTab', () => {
  it('never closes the agent tab, and never falls back from an unknown tab_id', async () => {
    for (const selector of [{ tab_index: 0 }, { tab_name: 'agent' }]) {
      expect((await daemon.post('/v1/CloseTab', { title: 'tabby', ...selector })).json.error.message).toContain(
        'the agent tab cannot be closed',
      )
    }
    const before = await tabs()
    const reply = await daemon.post('/v1/CloseTab', { title: 'tabby', tab_id: 'feedfacefeedface', tab_name: 'shell' })
    expect(reply.status).toBe(500)
    expect(reply.json.error.message).toContain('has no tab with id feedfacefeedface')
    expect(await tabs()).toEqual(before)
  })

  it('closes a tab by id and stops its tmux session', async () => {
    const shell = (await tabs()).find((tab) => tab.name === 'shell-2')
    expect(await daemon.client.call('CloseTab', { title: 'tabby', tab_id: shell?.id })).toEqual({ name: 'shell-2' })
    expect((await tabs()).map((tab) => tab.name)).not.toContain('shell-2')
    expect(tmuxSessions(daemon.home)).not.toContain(shell?.tmux_name)
  })

  it('renames web, process and editor tabs only, uniquely, keeping tmux_name and id', async () => {
    const npm = (await tabs()).find((tab) => tab.name === 'npm')
    // "shell" is taken and "shell-2" was closed above.
    expect(await daemon.client.call('RenameTab', { title: 'tabby', tab_id: npm?.id, new_name: 'shell' })).toEqual({
      ok: true,
      name: 'shell-2',
    })
    expect(await daemon.client.call('RenameTab', { title: 'tabby', tab_name: 'shell-2', new_name: 'dev server' })).toEqual({
      ok: true,
      name: 'dev-server',
    })
    const renamed = (await tabs()).find((tab) => tab.id === npm?.id)
    expect(renamed).toMatchObject({ name: 'dev-server', tmux_name: npm?.tmux_name })
    for (const selector of [{ tab_name: 'shell' }, { tab_index: 0 }]) {
      expect((await daemon.post('/v1/RenameTab', { title: 'tabby', ...selector, new_name: 'x' })).json.error.message).toContain(
        'only web, process and editor tabs can be renamed',
      )
    }
    expect((await daemon.post('/v1/RenameTab', { title: 'tabby', tab_id: 'nope', tab_name: 'web', new_name: 'x' })).status).toBe(500)
  })

  it('moves tabs within slots 1 to n-1, tab_id winning over tab_index', async () => {
    const roster = await tabs()
    const last = roster.at(-1)
    const moved = await daemon.client.call('ReorderTab', { title: 'tabby', tab_id: last?.id, tab_index: 1, new_index: 1 })
    expect(moved).toEqual({ ok: true, name: last?.name, index: 1 })
    const after = await tabs()
    expect(after[1]?.id).toBe(last?.id)
    expect(after.map((tab) => tab.id).sort()).toEqual(roster.map((tab) => tab.id).sort())
    for (const [body, message] of [
      [{ tab_index: 0, new_index: 2 }, 'index 0 is the agent tab'],
      [{ tab_index: 2, new_index: 0 }, 'new_index must be from 1 to'],
      [{ tab_index: 2, new_index: roster.length }, 'new_index must be from 1 to'],
      [{ tab_id: 'gone', tab_index: 2, new_index: 1 }, 'has no tab with id gone'],
      [{ new_index: 1 }, 'tab_id, tab_name or tab_index is required'],
    ] as const) {
      const reply = await daemon.post('/v1/ReorderTab', { title: 'tabby', ...body })
      expect(reply.status, JSON.stringify(body)).toBe(500)
      expect(reply.json.error.message).toContain(message)
    }
    expect(await tabs()).toEqual(after)
  })
})
