import type { Agent } from '../agents/agent.js'

/** `text` matched literally inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The usage-limit banner of an agent: limit_patterns.<agent> when set, else the built-in one. */
export function limitBanner(agent: Agent | undefined, patterns: Record<string, string>): RegExp | undefined {
  if (!agent) return undefined
  const pattern = patterns[agent.name] ?? (agent.limitBanner ? escapeRegExp(agent.limitBanner) : undefined)
  return pattern === undefined ? undefined : new RegExp(pattern, 'i')
}

/** Pane text with whitespace runs folded, so banners match across wrapped lines. */
export function showsBanner(banner: RegExp | undefined, paneText: string): boolean {
  return banner !== undefined && banner.test(paneText.replace(/\s+/g, ' '))
}

/**
 * The reset time a banner names ("resets at 5pm", "reset at 3:30 PM", "resets 17:00"),
 * as the next such wall-clock time after `now`, or undefined.
 */
export function parseResetTime(paneText: string, now: Date): Date | undefined {
  const match = /reset[s]?\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?/i.exec(paneText)
  if (!match) return undefined
  let hour = Number(match[1])
  const minute = Number(match[2] ?? 0)
  const meridiem = match[3]?.toLowerCase()
  if (meridiem === 'pm' && hour < 12) hour += 12
  if (meridiem === 'am' && hour === 12) hour = 0
  if (hour > 23 || minute > 59) return undefined
  const at = new Date(now)
  at.setHours(hour, minute, 0, 0)
  if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1)
  return at
}
