import { describe, expect, it } from 'vitest'
import { Text } from 'ink'
import { render } from 'ink-testing-library'
import { sampleFleet, sampleSession, sampleSessions, SAMPLE_NOW } from '../sample.js'
import { sessionRows } from '../state/rows.js'
import { previewLines } from './PreviewPane.js'
import { Screen, type ScreenProps } from './Screen.js'

function screen(size: { width: number; height: number }, overrides: Partial<ScreenProps> = {}) {
  const sessions = sampleSessions(40)
  const fleet = sampleFleet(sessions)
  const props: ScreenProps = {
    rows: sessionRows(fleet, { filter: '', attentionFirst: false }),
    sessions: sessions.length,
    attention: 2,
    selected: sessions[3],
    preview: 'fake-agent ready\n> hello\nreceived: hello\n\n\n',
    connection: 'live',
    filter: '',
    notice: { text: 'created otter', error: false },
    now: SAMPLE_NOW,
    ...size,
    ...overrides,
  }
  return render(<Screen {...props} />)
}

describe('Screen', () => {
  it('fits 80×24: header, list, the preview below it, the footer', () => {
    const lines = (screen({ width: 80, height: 23 }).lastFrame() ?? '').split('\n')
    expect(lines.length).toBeLessThanOrEqual(23)
    expect(lines.every((line) => line.length <= 80)).toBe(true)
    expect(lines[0]).toMatch(/^svc · 40 sessions · 2 need you\s+live$/)
    expect(lines[1]).toBe('created otter')
    const rule = lines.findIndex((line) => line.startsWith('── session-003 '))
    expect(rule).toBeGreaterThan(3)
    expect(lines.slice(rule + 1, rule + 4)).toEqual(['fake-agent ready', '> hello', 'received: hello'])
    expect(lines.at(-2)).toContain('⏎ attach')
    expect(lines.join('\n')).toContain('q quit')
  })

  it('puts the preview beside the list on a wide terminal', () => {
    const lines = (screen({ width: 160, height: 30 }).lastFrame() ?? '').split('\n')
    expect(lines.some((line) => /session-\d{3}.*── session-003 /.test(line))).toBe(true)
  })

  it('says reconnecting while the daemon is away', () => {
    expect(screen({ width: 80, height: 23 }, { connection: 'reconnecting' }).lastFrame()?.split('\n')[0]).toMatch(/reconnecting…$/)
  })

  it('shows a dialog in place of the preview, and a view in place of both', () => {
    const { lastFrame } = render(<Screen {...propsWith({ dialog: <Text>the dialog</Text> })} />)
    expect(lastFrame()).toContain('the dialog')
    expect(lastFrame()).not.toContain('── session-003')
    const view = render(<Screen {...propsWith({ view: <Text>the view</Text> })} />).lastFrame() ?? ''
    expect(view).toContain('the view')
    expect(view).not.toContain('session-000')
  })

  it("says in the footer that a hook session's attach comes back on Ctrl-\\ (it goes through the daemon's stream, not tmux)", () => {
    const footer = (selected: ScreenProps['selected']) => render(<Screen {...propsWith({ selected })} />).lastFrame()?.split('\n').at(-2)
    expect(footer(sampleSession({ backend: 'hook', remote_host: '10.0.0.2' }))).toContain('⏎ attach (Ctrl-\\ back)  n new')
    expect(footer(sampleSession())).toContain('⏎ attach  n new')
  })

  it('keeps the last lines of the pane that fit, without the blank ones below', () => {
    expect(previewLines('a\nb\nc\n\n  \n', 2)).toEqual(['b', 'c'])
  })
})

function propsWith(overrides: Partial<ScreenProps>): ScreenProps {
  const sessions = sampleSessions(3)
  return {
    rows: sessionRows(sampleFleet(sessions), { filter: '', attentionFirst: false }),
    sessions: 3,
    attention: 0,
    selected: sessions[0],
    preview: '',
    connection: 'live',
    filter: '',
    notice: undefined,
    now: SAMPLE_NOW,
    width: 80,
    height: 23,
    ...overrides,
  }
}
