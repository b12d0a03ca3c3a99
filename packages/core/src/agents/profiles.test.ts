import { readFileSync, readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { programOf, readScreen, type Reading } from './profile.js'
import { profileFor, PROFILES } from './profiles.js'

// Screens captured from the real CLIs (svc's capture: visible screen, joined lines), in
// fixtures/<program>-<version>/, and what each profile must read in them.
const FIXTURES = new URL('./fixtures/', import.meta.url)

type Expected = Omit<Reading, 'gate'> & { gate?: string }
const idle: Expected = { composer: true, empty: true, busy: false }
const typed: Expected = { composer: true, empty: false, busy: false }
const working: Expected = { composer: true, empty: true, busy: true }
const nothing: Expected = { composer: false, empty: false, busy: false }
const trust: Expected = { ...nothing, gate: 'folder trust' }

const EXPECTED: Record<string, Record<string, Expected>> = {
  'claude-2.1.332': {
    trust,
    'trust-mcp': trust,
    mcp: { ...nothing, gate: 'new MCP server' },
    // A first-run question the daemon does not answer: no composer, so no prompt goes in.
    'api-key': nothing,
    composer: idle,
    'composer-typed': typed,
    'pasted-long': typed,
    'busy-start': working,
    busy: working,
    reply: idle,
    'prose-quote': idle,
  },
  'claude-1.0.100': { trust, 'after-trust': idle },
  'codex-0.171.0': {
    trust,
    'composer-before-trust': idle,
    composer: idle,
    'composer-typed': typed,
    busy: working,
    reply: idle,
    'prose-quote': idle,
  },
  'codex-0.130.0': { trust },
  'gemini-0.61.0': {
    trust,
    'composer-before-trust': idle,
    'composer-fresh': idle,
    composer: idle,
    'composer-typed': typed,
    'composer-multiline': typed,
    'composer-long-paste': typed,
    busy: working,
    reply: idle,
    'prose-quote': idle,
    'prose-quote-after-trust': idle,
  },
  'opencode-1.18.33': {
    // The home screen, before a provider was set up and after.
    first: idle,
    composer: idle,
    'composer-typed': typed,
    // In a session, its sidebar shares the composer's rows.
    'composer-sidebar': idle,
    'composer-typed-session': typed,
    // Two lines, the second one blank: not empty.
    'composer-blank-line': typed,
    'pasted-long': typed,
    busy: working,
    'busy-typed': { ...working, empty: false },
    // A prompt queued behind the turn leaves the composer.
    'busy-queued': working,
    reply: idle,
    'prose-quote': idle,
  },
}

function reading(program: string, screen: string): Expected {
  const { gate, ...rest } = readScreen(PROFILES[program]!, screen)
  return { ...rest, ...(gate ? { gate: gate.name } : {}) }
}

describe.each(Object.entries(EXPECTED))('the screens of %s', (dir, screens) => {
  const program = dir.slice(0, dir.indexOf('-'))
  it('are all named here', () => {
    expect(readdirSync(new URL(`${dir}/`, FIXTURES)).map((file) => file.replace(/\.txt$/, '')).sort()).toEqual(Object.keys(screens).sort())
  })
  it.each(Object.entries(screens))('%s', (name, expected) => {
    expect(reading(program, readFileSync(new URL(`${dir}/${name}.txt`, FIXTURES), 'utf8'))).toEqual(expected)
  })
})

it('knows a program by the command line that runs it, past launchers and settings', () => {
  expect(profileFor('claude --model opus')?.name).toBe('claude')
  expect(profileFor('/opt/tools/codex --full-auto')?.name).toBe('codex')
  expect(profileFor('/usr/bin/node /home/me/.npm/bin/gemini')?.name).toBe('gemini')
  expect(profileFor('opencode --model stand-in/model')?.name).toBe('opencode')
  expect(profileFor('env TERM=xterm-256color claude')?.name).toBe('claude')
  // A wrapper or a program we do not know keeps the program-agnostic observation.
  expect(profileFor('node fake-agent.mjs')).toBeUndefined()
  expect(profileFor('claude-wrapper.sh')).toBeUndefined()
  expect(programOf('  ')).toBe('')
})
