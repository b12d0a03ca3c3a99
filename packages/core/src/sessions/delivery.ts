import { setTimeout as sleep } from 'node:timers/promises'
import { stripVTControlCharacters } from 'node:util'
import type { DeliveryStatus } from '@svc/protocol'
import type { Tmux } from '../infra/tmux.js'

const WHITESPACE_AND_BOXES = /[\s\u2500-\u257f]+/g

/** Pane text reduced to what survives wrapping and redraws: no ANSI, whitespace or box drawing. */
export function normalizePane(text: string): string {
  return stripVTControlCharacters(text).replace(WHITESPACE_AND_BOXES, '')
}

function occurrences(haystack: string, needle: string): number {
  if (needle === '') return 0
  let count = 0
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) count++
  return count
}

/** The prompt's last characters prove it arrived whole… */
const TAIL_PROBE = 32
/** …its first ones alone that it was cut short. */
const HEAD_PROBE = 16

/**
 * What the pane shows of a prompt compared with the baseline: its last characters
 * (`whole`), only its first characters (`head`, it was cut short), or neither.
 */
export function evidence(baseline: string, now: string, prompt: string): 'whole' | 'head' | 'none' {
  const text = normalizePane(prompt)
  const tail = text.slice(-TAIL_PROBE)
  const head = text.slice(0, HEAD_PROBE)
  const before = normalizePane(baseline)
  const after = normalizePane(now)
  if (occurrences(after, tail) > occurrences(before, tail)) return 'whole'
  if (occurrences(after, head) > occurrences(before, head)) return 'head'
  return 'none'
}

export interface DeliveryTiming {
  intervalMs: number
  timeoutMs: number
}

export const DELIVERY_TIMING: DeliveryTiming = { intervalMs: 50, timeoutMs: 2_000 }

export interface Delivery {
  status: DeliveryStatus
  /** The pane as last seen before Enter: what the agent's reaction is measured against. */
  screen?: string
}

/**
 * One paste and its verification against `baseline` (the pane before the first
 * attempt: every paste clears the composer first), without the final Enter.
 */
async function pasteAndVerify(
  tmux: Tmux,
  name: string,
  prompt: string,
  baseline: string | undefined,
  timing: DeliveryTiming,
): Promise<Delivery> {
  await tmux.paste(name, prompt)
  if (baseline === undefined) return { status: 'could-not-confirm' }
  const deadline = Date.now() + timing.timeoutMs
  let seen: 'whole' | 'head' | 'none'
  let screen: string
  for (;;) {
    await sleep(timing.intervalMs)
    const now = (await tmux.capture([name])).get(name)
    if (now === undefined) return { status: 'could-not-confirm' }
    screen = now
    seen = evidence(baseline, now, prompt)
    if (seen === 'whole' || Date.now() >= deadline) break
  }
  return { status: seen === 'whole' ? 'delivered' : seen === 'head' ? 'not-delivered' : 'sent-unverified', screen }
}

/** How long a new program gets to draw something before its first prompt is pasted anyway. */
const STARTUP_WAIT_MS = 10_000

/** A fresh program needs a moment to draw its input before a paste can land. */
export async function waitForFirstDraw(tmux: Tmux, name: string): Promise<void> {
  const deadline = Date.now() + STARTUP_WAIT_MS
  while (Date.now() < deadline) {
    const text = (await tmux.capture([name])).get(name)
    if (text === undefined || text.trim() !== '') return
    await sleep(50)
  }
}

/**
 * Delivers a prompt into a pane: clear the composer, bracketed paste, watch the pane
 * for the prompt's text, then press Enter. A prompt seen cut short is retried once; if
 * it is still cut short the composer is cleared and Enter is not sent, so a truncated
 * prompt never runs.
 */
export async function deliverPrompt(
  tmux: Tmux,
  name: string,
  prompt: string,
  timing: DeliveryTiming = DELIVERY_TIMING,
): Promise<Delivery> {
  const baseline = (await tmux.capture([name])).get(name)
  let delivery = await pasteAndVerify(tmux, name, prompt, baseline, timing)
  if (delivery.status === 'not-delivered') delivery = await pasteAndVerify(tmux, name, prompt, baseline, timing)
  await tmux.sendKeys(name, delivery.status === 'not-delivered' ? 'C-u' : 'Enter')
  return delivery
}
