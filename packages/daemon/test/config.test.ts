import { readFile, writeFile } from 'node:fs/promises'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { CONFIG_KEY_NAMES } from '@svc/core'
import { cleanup, startDaemon, tempHomes, type TestDaemon, branches, openSessionDaemon } from '@svc/test-kit'

let daemon: TestDaemon
const initial = { network: { listen_addr: '' } }

beforeEach(async () => {
  daemon ??= await startDaemon()
  await writeFile(daemon.paths.config, JSON.stringify(initial))
})
afterAll(() => cleanup(daemon.home))

const file = async () => JSON.parse(await readFile(daemon.paths.config, 'utf8'))
const set = (key: string, value: string) => daemon.post('/v1/SetConfigValue', { key, value })
const unset = (key: string) => daemon.post('/v1/UnsetConfigValue', { key })

describe('GetConfig', () => {
  it('lists every key with purpose, type, default and current value', async () => {
    const reply = await daemon.post('/v1/GetConfig', {})
    expect(reply.status).toBe(200)
    const { entries, path } = reply.json.data
    expect(path).toBe(daemon.paths.config)
    expect(entries.map((entry: { key: string }) => entry.key)).toEqual(CONFIG_KEY_NAMES)
    for (const entry of entries) {
      expect(entry.purpose.length).toBeGreaterThan(10)
      expect(['bool', 'int', 'duration', 'string', 'address', 'env-names', 'list', 'map', 'ssh-hosts']).toContain(entry.type)
      expect(['now', 'next-start']).toContain(entry.applies)
    }
    const byKey = Object.fromEntries(entries.map((entry: { key: string }) => [entry.key, entry]))
    expect(byKey['network.listen_addr']).toMatchObject({ type: 'address', default: '127.0.0.1:8443', value: '' })
    expect(byKey.daemon_poll_interval).toMatchObject({ type: 'duration', default: '1s', value: '1s' })
    expect(byKey['network.require_token'].aliases).toEqual(['require_token'])
    expect(byKey.branch_prefix.applies).toBe('next-start')
  })
})

describe('GetConfig tiers, words and sources', () => {
  const entries = async () => (await daemon.client.call('GetConfig')).entries
  type Entry = Awaited<ReturnType<typeof entries>>[number]
  const entry = async (key: string) => (await entries()).find((candidate) => candidate.key === key) as Entry

  it('ranks every key 1 core, 2 common or 3 advanced, and marks it settable and editable', async () => {
    const names: Record<number, string> = { 1: 'core', 2: 'common', 3: 'advanced' }
    const all = await entries()
    for (const { key, tier, tier_name, settable, editable } of all) {
      expect(Number.isInteger(tier), key).toBe(true)
      expect(tier_name, key).toBe(names[tier])
      expect({ settable, editable }, key).toEqual({ settable: true, editable: true })
    }
    expect(new Set(all.map(({ tier }) => tier))).toEqual(new Set([1, 2, 3]))
    const tierOf = Object.fromEntries(all.map(({ key, tier_name }) => [key, tier_name]))
    expect(tierOf).toMatchObject({ default_program: 'core', program_overrides: 'core', log_max_size_mb: 'advanced' })
  })

  // The booleans and backend are this version's closed vocabularies; every other key takes
  // open text. backend is a repository setting: its words are set in repo-config.test.ts.
  it('lists enum words exactly for closed keys, each accepted by SetConfigValue and nothing else', async () => {
    const all = await entries()
    expect(all.filter((candidate) => candidate.enum).map(({ key }) => key)).toEqual(
      all.filter(({ type, key }) => type === 'bool' || key === 'backend' || key === 'agent_gates').map(({ key }) => key),
    )
    expect((await entry('backend')).enum).toEqual(['local', 'hook', 'docker', 'ssh'])
    expect((await entry('agent_gates')).enum).toEqual(['accept', 'ask'])
    for (const word of ['ask', 'accept']) expect((await set('agent_gates', word)).status).toBe(200)
    expect((await set('agent_gates', 'always')).json.error.message).toContain('expected one of accept, ask')
    for (const { key, enum: words } of all.filter((candidate) => candidate.enum && candidate.type === 'bool')) {
      expect(words, key).toEqual(['true', 'false'])
      for (const word of words ?? []) {
        const reply = await set(key, word)
        expect(reply.status, `${key} = ${word}`).toBe(200)
        expect((await entry(key)).value).toBe(word)
      }
      const before = await readFile(daemon.paths.config, 'utf8')
      const refused = await set(key, 'maybe')
      expect(refused.status, key).toBe(500)
      expect(refused.json.error.message).toContain('expected true or false')
      expect(await readFile(daemon.paths.config, 'utf8')).toBe(before)
    }
  })

  it('says the source: default until config.json sets the key, global after a set, default again after an unset', async () => {
    expect(await entry('network.listen_addr')).toMatchObject({ source: 'global', value: '' })
    expect(await entry('default_program')).toMatchObject({ source: 'default', value: 'claude' })
    // Setting the default value explicitly still makes config.json the source.
    await set('default_program', 'claude')
    expect(await entry('default_program')).toMatchObject({ source: 'global', value: 'claude' })
    await unset('default_program')
    expect((await entry('default_program')).source).toBe('default')

    await set('program_overrides.codex', 'codex --full-auto')
    expect((await entry('program_overrides')).source).toBe('global')
    await unset('program_overrides.codex')
    expect((await entry('program_overrides')).source).toBe('default')

    // A hand edit under an older spelling counts too.
    await writeFile(daemon.paths.config, JSON.stringify({ ...initial, require_token: false }))
    expect(await entry('network.require_token')).toMatchObject({ source: 'global', value: 'false' })
  })
})

describe('SetConfigValue', () => {
  it.each([
    ['network.require_token', 'true', true, 'true'],
    ['log_max_backups', '7', 7, '7'],
    ['daemon_poll_interval', '1500ms', '1500ms', '1500ms'],
    ['daemon_poll_interval', '120000', '2m', '2m'],
    ['limit_retry_interval', '2h', '2h', '2h'],
    ['session_env_passthrough', 'AWS_PROFILE, OPENAI_API_KEY', ['AWS_PROFILE', 'OPENAI_API_KEY'], '["AWS_PROFILE","OPENAI_API_KEY"]'],
    ['session_env_passthrough', '["GH_TOKEN"]', ['GH_TOKEN'], '["GH_TOKEN"]'],
    ['network.cors_allowed_origins', 'https://ui.example.com', ['https://ui.example.com'], '["https://ui.example.com"]'],
    ['network.listen_addr', '127.0.0.1:0', '127.0.0.1:0', '127.0.0.1:0'],
    ['program_overrides', '{"codex":"codex --full-auto"}', { codex: 'codex --full-auto' }, '{"codex":"codex --full-auto"}'],
    ['default_program', 'aider --model sonnet', 'aider --model sonnet', 'aider --model sonnet'],
  ])('sets %s from %j', async (key, value, stored, shown) => {
    const reply = await set(key, value)
    expect(reply.status).toBe(200)
    expect(reply.json.data).toMatchObject({ ok: true, key, value: shown, applies: 'now' })
    const saved = await file()
    const leaf = key.split('.').reduce((node, part) => node?.[part], saved)
    expect(leaf).toEqual(stored)
    const entry = (await daemon.client.call('GetConfig')).entries.find((candidate) => candidate.key === key)
    expect(entry?.value).toBe(shown)
  })

  it.each([
    ['network.require_token', 'yes', 'expected true or false'],
    ['log_max_size_mb', '0', 'expected an integer from 1'],
    ['log_max_size_mb', 'ten', 'expected an integer'],
    ['daemon_poll_interval', 'soon', 'expected a duration'],
    ['daemon_poll_interval', '10ms', 'at least 100ms'],
    ['session_env_passthrough', 'AWS_*', 'not an exact environment variable name'],
    ['network.cors_allowed_origins', 'https://ui.example.com/app', 'not an exact origin'],
    ['network.listen_addr', 'localhost', 'not an address'],
    ['network.listen_addr', '127.0.0.1:70000', 'out of range'],
    ['program_overrides', 'claude', 'expected a JSON object'],
    ['limit_patterns.claude', '(unclosed', 'not a valid regular expression'],
    ['default_program', ' ', 'expected a non-empty string'],
    ['no_such_key', '1', 'unknown config key "no_such_key"'],
  ])('refuses %s = %j and changes nothing', async (key, value, message) => {
    const before = await readFile(daemon.paths.config, 'utf8')
    const reply = await set(key, value)
    expect(reply.status).toBe(500)
    expect(reply.json.error.daemon_rejected).toBe(true)
    expect(reply.json.error.message).toContain(message)
    expect(await readFile(daemon.paths.config, 'utf8')).toBe(before)
  })

  it('refuses auto_yes with guidance', async () => {
    const reply = await set('auto_yes', 'true')
    expect(reply.status).toBe(500)
    expect(reply.json.error.message).toMatch(/auto_yes was removed.*program_overrides/)
    expect(await file()).toEqual(initial)
  })

  it('requires key and value', async () => {
    expect((await daemon.post('/v1/SetConfigValue', { value: 'x' })).json.error.message).toBe('key is required')
    expect((await daemon.post('/v1/SetConfigValue', { key: 'default_program' })).json.error.message).toBe(
      'value is required (UnsetConfigValue clears a key)',
    )
  })

  it('sets one entry of a map with a dotted leaf', async () => {
    await set('program_overrides.claude', 'claude --model opus')
    await set('program_overrides.codex', 'codex --full-auto')
    expect((await file()).program_overrides).toEqual({ claude: 'claude --model opus', codex: 'codex --full-auto' })
    await unset('program_overrides.claude')
    expect((await file()).program_overrides).toEqual({ codex: 'codex --full-auto' })
  })

  it('says when a key only applies on the next start', async () => {
    for (const [key, value] of [['branch_prefix', 'agents/'], ['root_agent', 'codex'], ['root_agents', '/srv/app']]) {
      expect((await set(key as string, value as string)).json.data.applies).toBe('next-start')
    }
  })

  it('writes the canonical spelling and clears the alias', async () => {
    await writeFile(daemon.paths.config, JSON.stringify({ ...initial, require_token: false }))
    await set('require_token', 'true')
    expect(await file()).toEqual({ network: { listen_addr: '', require_token: true } })
  })

  it('keeps other keys, including hand edits made while the daemon runs', async () => {
    await writeFile(daemon.paths.config, JSON.stringify({ ...initial, log_max_backups: 9, mystery: 1 }))
    await set('log_max_size_mb', '20')
    expect(await file()).toEqual({ network: { listen_addr: '' }, log_max_backups: 9, log_max_size_mb: 20, mystery: 1 })
    expect((await daemon.client.call('GetConfig')).warnings).toContain('unknown key "mystery" is ignored')
  })

  it('never overwrites a bad hand-edited file, and names the file and key', async () => {
    for (const text of ['{"log_max_backups": "many"}', '{"network": {"require_token": 1}}', '{ not json']) {
      await writeFile(daemon.paths.config, text)
      for (const reply of [await set('default_program', 'codex'), await daemon.post('/v1/GetConfig', {})]) {
        expect(reply.status).toBe(500)
        expect(reply.json.error.message).toContain(daemon.paths.config)
      }
      expect(await readFile(daemon.paths.config, 'utf8')).toBe(text)
    }
    await writeFile(daemon.paths.config, '{"log_max_backups": "many"}')
    expect((await set('log_max_backups', '2')).json.error.message).toContain('key "log_max_backups"')
  })

  it('loses no update under 20 concurrent writers', async () => {
    const writes = Array.from({ length: 20 }, (_, i) => set(`program_overrides.agent${i}`, `run ${i}`))
    for (const reply of await Promise.all(writes)) expect(reply.status).toBe(200)
    expect(Object.keys((await file()).program_overrides)).toHaveLength(20)
  })
})

describe('UnsetConfigValue', () => {
  it('clears both alias spellings at once and returns the default', async () => {
    await writeFile(
      daemon.paths.config,
      JSON.stringify({ ...initial, preview_listen_addr: '127.0.0.1:9000', cors_allowed_origins: ['http://a.localhost'] }),
    )
    const reply = await unset('network.preview_listen_addr')
    expect(reply.json.data).toMatchObject({ ok: true, key: 'network.preview_listen_addr', value: '' })
    await writeFile(
      daemon.paths.config,
      JSON.stringify({
        network: { listen_addr: '', cors_allowed_origins: ['http://b.localhost'] },
        cors_allowed_origins: ['http://a.localhost'],
      }),
    )
    await unset('cors_allowed_origins')
    expect(await file()).toEqual(initial)
  })

  it('refuses unknown keys and auto_yes', async () => {
    expect((await unset('nope')).status).toBe(500)
    expect((await unset('auto_yes')).json.error.message).toContain('program_overrides')
  })
})

describe('keys that apply on the next start', () => {
  const homes = tempHomes()
  afterAll(homes.release)

  it('creates branches with the start-time branch_prefix until the daemon restarts', async () => {
    // The session daemon starts with branch_prefix "agent/".
    const { repo, daemon: sessions } = await openSessionDaemon(homes)
    const change = await sessions.post('/v1/SetConfigValue', { key: 'branch_prefix', value: 'later/' })
    expect(change.json.data).toMatchObject({ ok: true, value: 'later/', applies: 'next-start' })
    const before = await sessions.client.call('CreateSession', { repo_path: repo, title: 'before' })
    expect(before.instance.branch).toBe('agent/before')

    await sessions.stop()
    const restarted = await startDaemon({ home: sessions.home })
    const after = await restarted.client.call('CreateSession', { repo_path: repo, title: 'after' })
    expect(after.instance.branch).toBe('later/after')
    expect(branches(repo)).toEqual(['agent/before', 'later/after', 'main'])
  })
})
