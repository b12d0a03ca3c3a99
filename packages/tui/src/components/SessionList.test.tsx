import { describe, expect, it } from 'vitest'
import { render } from 'ink-testing-library'
import { applyFrame } from '@svc/protocol'
import { sampleFleet, sampleSession, sampleSessions, SAMPLE_NOW } from '../sample.js'
import { sessionRows } from '../state/rows.js'
import { SessionList } from './SessionList.js'
import { SessionRow } from './SessionRow.js'

describe('SessionRow', () => {
  it('shows the state, title, idle reason in words, program, branch and the age of the last pane change', () => {
    const session = sampleSession({ title: 'otter', liveness_name: 'ready', idle_reason: 'prompt-not-delivered', program: 'codex', branch: 'me/otter' })
    const { lastFrame } = render(<SessionRow session={session} attention={undefined} selected={false} width={120} now={SAMPLE_NOW} />)
    const line = lastFrame() ?? ''
    for (const part of ['● ready', 'otter', 'waiting: prompt not delivered', 'codex', 'me/otter', '12s']) expect(line).toContain(part)
    expect(line.startsWith(' ')).toBe(true)
  })

  it('shows where a hook session runs, and "unreachable" while its remote does not answer', () => {
    const session = sampleSession({ title: 'remote', liveness_name: 'ready', idle_reason: 'settled-after-pane-change', backend: 'hook', remote_host: '10.0.0.2' })
    const render160 = (overrides = {}) => render(<SessionRow session={{ ...session, ...overrides }} attention={undefined} selected={false} width={160} now={SAMPLE_NOW} />).lastFrame() ?? ''
    expect(render160()).toContain('claude@10.0.0.2')
    expect(render160()).not.toContain('unreachable')
    expect(render160({ remote_unreachable: true })).toContain('unreachable · done: your turn')
  })

  it('marks a session that needs its user, and fits 80 columns', () => {
    const { lastFrame } = render(<SessionRow session={sampleSession({ title: 'a-rather-long-session-title-indeed' })} attention="settled" selected width={80} now={SAMPLE_NOW} />)
    const line = lastFrame() ?? ''
    expect(line.startsWith('!')).toBe(true)
    expect(line.length).toBeLessThanOrEqual(80)
    expect(line).toContain('a-rather')
  })
})

describe('SessionList', () => {
  it('renders the rows that fit, with group headers, however many sessions there are', () => {
    const fleet = sampleFleet(sampleSessions(500))
    const rows = sessionRows(fleet, { filter: '', attentionFirst: false })
    const { lastFrame } = render(<SessionList rows={rows} selected="id-session-250" width={100} height={12} now={SAMPLE_NOW} />)
    const lines = (lastFrame() ?? '').split('\n')
    expect(lines).toHaveLength(12)
    expect(lastFrame()).toContain('session-250')
  })

  it('shows the attention group first when asked', () => {
    const fleet = applyFrame(sampleFleet(sampleSessions(30)), {
      type: 'session.attention',
      seq: 1,
      data: { id: 'id-session-029', title: 'session-029', repo_id: 'r', reason: 'usage-limit' },
    })
    const rows = sessionRows(fleet, { filter: '', attentionFirst: true })
    const { lastFrame } = render(<SessionList rows={rows} selected={undefined} width={100} height={5} now={SAMPLE_NOW} />)
    const [group, first] = (lastFrame() ?? '').split('\n')
    expect(group).toContain('needs you (1)')
    expect(first).toMatch(/^! .*session-029/)
  })

  it('says how to start when there are no sessions', () => {
    const { lastFrame } = render(<SessionList rows={[]} selected={undefined} width={80} height={5} now={SAMPLE_NOW} />)
    expect(lastFrame()).toContain('No sessions. Press n to start one.')
  })
})
