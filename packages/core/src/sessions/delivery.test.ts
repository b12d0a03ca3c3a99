import { describe, expect, it } from 'vitest'
import type { Tmux } from '../infra/tmux.js'
import { deliverPrompt, evidence, normalizePane, type DeliveryTiming } from './delivery.js'

it('normalizes away ANSI, whitespace and box drawing', () => {
  expect(normalizePane('\u001b[1;32m│ hello ─┐\n  world\u001b[0m ╰')).toBe('helloworld')
  // capture-pane -p renders screen cells, so only a prompt's own control sequences reach here.
  expect(normalizePane('\u001b[2Kline\u001b[?25h \u001b[38;5;208mtext\u001b[m')).toBe('linetext')
})

const prompt = 'Summarise the open issues in the tracker and propose an order to fix them'

it('sees a whole prompt, even wrapped across lines', () => {
  expect(evidence('> ', `> Summarise the open issues in the tr\nacker and propose an order to fix them`, prompt)).toBe('whole')
})

it('sees a prompt cut short by its beginning only', () => {
  expect(evidence('> ', '> Summarise the open i', prompt)).toBe('head')
})

it('sees nothing when the pane does not show the prompt', () => {
  expect(evidence('> ', '> [Pasted text #1 +1 lines]', prompt)).toBe('none')
})

it('counts against the baseline, so an earlier identical prompt is not evidence', () => {
  const earlier = `> ${prompt}\nreceived\n> `
  expect(evidence(earlier, earlier, prompt)).toBe('none')
  expect(evidence(earlier, `${earlier}${prompt}`, prompt)).toBe('whole')
})

/**
 * A pane that shows what `shows` makes of each paste. Capture fails once `capturable`
 * is false, as it does when the tmux session is gone.
 */
function fakePane(shows: (prompt: string) => string) {
  const pane = { screen: '> ', capturable: true, pastes: 0, keys: [] as string[] }
  const tmux = {
    capture: async (names: string[]) => new Map(pane.capturable ? names.map((name) => [name, pane.screen]) : []),
    paste: async (_name: string, text: string) => {
      pane.pastes++
      pane.screen += shows(text)
    },
    sendKeys: async (_name: string, ...keys: string[]) => {
      pane.keys.push(...keys)
    },
  }
  return { pane, tmux: tmux as unknown as Tmux }
}

const fast: DeliveryTiming = { intervalMs: 1, timeoutMs: 30 }

describe('deliverPrompt', () => {
  it('pastes a whole prompt once and presses Enter', async () => {
    const { pane, tmux } = fakePane((text) => text)
    expect(await deliverPrompt(tmux, 'p', prompt, fast)).toEqual({ status: 'delivered', screen: `> ${prompt}` })
    expect(pane.pastes).toBe(1)
    expect(pane.keys).toEqual(['Enter'])
  })

  it('retries a prompt cut short once, then clears the composer without Enter', async () => {
    const { pane, tmux } = fakePane((text) => text.slice(0, 20))
    expect((await deliverPrompt(tmux, 'p', prompt, fast)).status).toBe('not-delivered')
    expect(pane.pastes).toBe(2)
    expect(pane.keys).toEqual(['C-u'])
  })

  it('cannot confirm when the pane cannot be captured, before or after the paste', async () => {
    const unreadable = fakePane((text) => text)
    unreadable.pane.capturable = false
    const vanishing = fakePane(() => {
      vanishing.pane.capturable = false
      return ''
    })
    for (const { pane, tmux } of [unreadable, vanishing]) {
      expect((await deliverPrompt(tmux, 'p', prompt, fast)).status).toBe('could-not-confirm')
      expect(pane.pastes).toBe(1)
      expect(pane.keys).toEqual(['Enter'])
    }
  })

  it('reports sent-unverified when nothing shows before the timeout, and still presses Enter', async () => {
    const { pane, tmux } = fakePane(() => '[Pasted text #1]')
    const started = Date.now()
    expect((await deliverPrompt(tmux, 'p', prompt, fast)).status).toBe('sent-unverified')
    expect(Date.now() - started).toBeGreaterThanOrEqual(fast.timeoutMs)
    expect(pane.pastes).toBe(1)
    expect(pane.keys).toEqual(['Enter'])
  })
})
