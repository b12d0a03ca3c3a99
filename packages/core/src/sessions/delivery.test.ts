import { describe, expect, it } from 'vitest'
import { PROFILES } from '../agents/profiles.js'
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

const fast: DeliveryTiming = { intervalMs: 1, timeoutMs: 30, submitMs: 30 }

describe('deliverPrompt', () => {
  it('pastes a whole prompt once and presses Enter', async () => {
    const { pane, tmux } = fakePane((text) => text)
    expect(await deliverPrompt(tmux, 'p', prompt, undefined, fast)).toEqual({ status: 'delivered', screen: `> ${prompt}` })
    expect(pane.pastes).toBe(1)
    expect(pane.keys).toEqual(['Enter'])
  })

  it('retries a prompt cut short once, then clears the composer without Enter', async () => {
    const { pane, tmux } = fakePane((text) => text.slice(0, 20))
    expect((await deliverPrompt(tmux, 'p', prompt, undefined, fast)).status).toBe('not-delivered')
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
      expect((await deliverPrompt(tmux, 'p', prompt, undefined, fast)).status).toBe('could-not-confirm')
      expect(pane.pastes).toBe(1)
      expect(pane.keys).toEqual(['Enter'])
    }
  })

  it('reports sent-unverified when nothing shows before the timeout, and still presses Enter', async () => {
    const { pane, tmux } = fakePane(() => '[Pasted text #1]')
    const started = Date.now()
    expect((await deliverPrompt(tmux, 'p', prompt, undefined, fast)).status).toBe('sent-unverified')
    expect(Date.now() - started).toBeGreaterThanOrEqual(fast.timeoutMs)
    expect(pane.pastes).toBe(1)
    expect(pane.keys).toEqual(['Enter'])
  })
})

describe('deliverPrompt to a known agent', () => {
  const COMPOSER = (input: string) => `────\n❯\u00a0${input}\n────\n  ⏵⏵ auto mode on`
  const WORKING = '✶ Pondering…\n────\n❯\u00a0\n────\n  ⏵⏵ auto mode on · esc to interrupt'
  const long = Array.from({ length: 30 }, (_, line) => `line ${line + 1} of a long prompt`).join('\n')

  /** Claude's composer: a paste shows in it, the Enters pressed go to `enter`. */
  function claudePane(shows: (text: string) => string, enter: (count: number) => string | undefined) {
    const fake = fakePane(() => '')
    fake.pane.screen = COMPOSER('')
    let enters = 0
    Object.assign(fake.tmux, {
      paste: async (_name: string, text: string) => {
        fake.pane.pastes++
        fake.pane.screen = COMPOSER(shows(text))
      },
      sendKeys: async (_name: string, ...keys: string[]) => {
        fake.pane.keys.push(...keys)
        if (keys.includes('Enter')) fake.pane.screen = enter(++enters) ?? fake.pane.screen
      },
    })
    return fake
  }

  it('counts the placeholder Claude draws for a long paste of that many lines, once Enter set it to work', async () => {
    const { pane, tmux } = claudePane(() => '[Pasted text #1 +29 lines]', () => WORKING)
    expect((await deliverPrompt(tmux, 'p', long, PROFILES.claude, fast)).status).toBe('delivered')
    expect(pane.keys).toEqual(['Enter'])
    // A placeholder for another paste's length is no evidence of this one.
    expect(evidence(COMPOSER(''), COMPOSER('[Pasted text #1 +4 lines]'), long, PROFILES.claude?.pastePlaceholder)).toBe('none')
  })

  it('presses Enter once more when the first left the prompt in the composer', async () => {
    const { pane, tmux } = claudePane((text) => text, (count) => (count === 2 ? COMPOSER('') : undefined))
    expect((await deliverPrompt(tmux, 'p', prompt, PROFILES.claude, fast)).status).toBe('delivered')
    expect(pane.keys).toEqual(['Enter', 'Enter'])
  })

  it('does not call a prompt delivered when no Enter takes, and says so when a start-up gate took it', async () => {
    const stuck = claudePane((text) => text, () => undefined)
    expect((await deliverPrompt(stuck.tmux, 'p', prompt, PROFILES.claude, fast)).status).toBe('sent-unverified')
    expect(stuck.pane.keys).toEqual(['Enter', 'Enter'])
    const gate = 'Quick safety check: Is this a project you created or one you trust?\n ❯ No, exit\n   Yes, I trust this folder\n Enter to confirm · Esc to cancel'
    const gated = claudePane((text) => text, () => gate)
    expect(await deliverPrompt(gated.tmux, 'p', prompt, PROFILES.claude, fast)).toMatchObject({ status: 'sent-unverified', interrupted: true })
    expect(gated.pane.keys).toEqual(['Enter'])
  })
})
