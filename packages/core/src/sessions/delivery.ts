import { setTimeout as sleep } from 'node:timers/promises'
import { stripVTControlCharacters } from 'node:util'
import type { DeliveryStatus } from '@svc/protocol'
import { readScreen, type Profile } from '../agents/profile.js'
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

/** How many placeholders for a paste of `prompt`'s line count the screen shows. */
function placeholders(screen: string, prompt: string, placeholder: RegExp): number {
  const lines = prompt.split('\n').length
  const counted = new RegExp(placeholder.source, 'g')
  return [...stripVTControlCharacters(screen).matchAll(counted)].filter((match) => Math.abs(Number(match[1]) - lines) <= 1).length
}

/**
 * What the pane shows of a prompt compared with the baseline: its last characters, or
 * the placeholder its program draws for a paste of its length (`whole`), only its first
 * characters (`head`, it was cut short), or neither.
 */
export function evidence(baseline: string, now: string, prompt: string, placeholder?: RegExp): 'whole' | 'head' | 'none' {
  const text = normalizePane(prompt)
  const tail = text.slice(-TAIL_PROBE)
  const head = text.slice(0, HEAD_PROBE)
  const before = normalizePane(baseline)
  const after = normalizePane(now)
  if (occurrences(after, tail) > occurrences(before, tail)) return 'whole'
  if (placeholder && placeholders(now, prompt, placeholder) > placeholders(baseline, prompt, placeholder)) return 'whole'
  if (occurrences(after, head) > occurrences(before, head)) return 'head'
  return 'none'
}

export interface DeliveryTiming {
  intervalMs: number
  timeoutMs: number
  /** How long a known agent gets to show that Enter took: it went to work, or emptied its composer. */
  submitMs: number
}

export const DELIVERY_TIMING: DeliveryTiming = { intervalMs: 50, timeoutMs: 2_000, submitMs: 3_000 }

export interface Delivery {
  status: DeliveryStatus
  /** The pane as last seen before Enter: what the agent's reaction is measured against. */
  screen?: string
  /** A known agent's start-up gate came up and took the Enter: the prompt may be typed again. */
  interrupted?: boolean
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
  placeholder: RegExp | undefined,
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
    seen = evidence(baseline, now, prompt, placeholder)
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
 * After Enter, a known agent's screen says whether the prompt went: it works, or its
 * composer is empty again (a quick answer, or a prompt queued behind the current turn).
 * `gate`: a start-up gate came up instead, and took the Enter.
 */
async function submitted(tmux: Tmux, name: string, profile: Profile, waitMs: number): Promise<'yes' | 'no' | 'gate'> {
  const deadline = Date.now() + waitMs
  for (;;) {
    await sleep(50)
    const screen = (await tmux.capture([name])).get(name)
    if (screen === undefined) return 'no'
    const reading = readScreen(profile, screen)
    if (reading.gate) return 'gate'
    if (reading.busy || reading.empty) return 'yes'
    if (Date.now() >= deadline) return 'no'
  }
}

/**
 * Presses Enter under a prompt seen whole, and for a known agent confirms that it was
 * taken: an Enter that did not take (a paste-burst guard, say) is pressed once more, and
 * a prompt whose Enter went nowhere visible is not called delivered.
 */
async function submit(tmux: Tmux, name: string, profile: Profile | undefined, waitMs: number): Promise<DeliveryStatus | 'gate'> {
  if (profile?.enterDelayMs) await sleep(profile.enterDelayMs)
  await tmux.sendKeys(name, 'Enter')
  if (!profile) return 'delivered'
  let taken = await submitted(tmux, name, profile, waitMs)
  if (taken === 'no') {
    await tmux.sendKeys(name, 'Enter')
    taken = await submitted(tmux, name, profile, waitMs)
  }
  return taken === 'yes' ? 'delivered' : taken === 'gate' ? 'gate' : 'sent-unverified'
}

/**
 * Delivers a prompt into a pane: clear the composer, bracketed paste, watch the pane
 * for the prompt's text, then press Enter. A prompt seen cut short is retried once; if
 * it is still cut short the composer is cleared and Enter is not sent, so a truncated
 * prompt never runs. For a known agent (`profile`) `delivered` also needs the Enter to
 * have taken; `interrupted` says a start-up gate came up and took it.
 */
export async function deliverPrompt(
  tmux: Tmux,
  name: string,
  prompt: string,
  profile?: Profile,
  timing: DeliveryTiming = DELIVERY_TIMING,
): Promise<Delivery> {
  const baseline = (await tmux.capture([name])).get(name)
  const placeholder = profile?.pastePlaceholder
  let delivery = await pasteAndVerify(tmux, name, prompt, baseline, timing, placeholder)
  if (delivery.status === 'not-delivered') delivery = await pasteAndVerify(tmux, name, prompt, baseline, timing, placeholder)
  if (delivery.status === 'not-delivered') {
    await tmux.sendKeys(name, 'C-u')
    return delivery
  }
  const verdict = await submit(tmux, name, delivery.status === 'delivered' ? profile : undefined, timing.submitMs)
  if (verdict === 'gate') return { ...delivery, status: 'sent-unverified', interrupted: true }
  return delivery.status === 'delivered' ? { ...delivery, status: verdict } : delivery
}
