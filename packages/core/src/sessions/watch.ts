import { createHash } from 'node:crypto'
import type { Tmux } from '../infra/tmux.js'
import { normalizePane } from './delivery.js'

export type Sighting =
  | { kind: 'gone' }
  | { kind: 'dead'; exitStatus: number | undefined; lastWords: string }
  /** `first`: no earlier look to compare with (a fresh daemon, a respawned pane), so nothing is known yet. */
  | { kind: 'alive'; first: boolean; changed: boolean; attached: boolean; text: string }

interface Baseline {
  hash: string
  text: string
}

function hashOf(text: string): string {
  return createHash('sha1').update(normalizePane(text)).digest('hex')
}

/**
 * Watches agent panes at the cost of one tmux process per look for the whole fleet,
 * plus one for the panes that showed activity: a pane changed when the hash of its
 * visible text differs from the last look.
 */
export class PaneWatch {
  private readonly baselines = new Map<string, Baseline>()

  constructor(private readonly tmux: Tmux) {}

  async look(names: string[]): Promise<Map<string, Sighting>> {
    const panes = await this.tmux.poll(names)
    const sightings = new Map<string, Sighting>()
    // Attached sessions raise no activity flag, and a pane without a baseline needs one.
    const toCapture = names.filter((name) => {
      const pane = panes.get(name)
      return pane !== undefined && (pane.dead || pane.activity || pane.hasClient || !this.baselines.has(name))
    })
    const captured = await this.tmux.capture(toCapture)
    for (const name of names) {
      const pane = panes.get(name)
      if (!pane) {
        this.baselines.delete(name)
        sightings.set(name, { kind: 'gone' })
        continue
      }
      if (pane.dead) {
        sightings.set(name, { kind: 'dead', exitStatus: pane.deadStatus, lastWords: lastWords(captured.get(name) ?? '') })
        continue
      }
      const previous = this.baselines.get(name)
      const text = captured.get(name)
      if (text === undefined) {
        sightings.set(name, { kind: 'alive', first: previous === undefined, changed: false, attached: pane.attached, text: previous?.text ?? '' })
        continue
      }
      const hash = hashOf(text)
      this.baselines.set(name, { hash, text })
      sightings.set(name, {
        kind: 'alive',
        first: previous === undefined,
        changed: previous !== undefined && previous.hash !== hash,
        attached: pane.attached,
        text,
      })
    }
    return sightings
  }

  /**
   * Takes `screen` (or the pane as it is now) as the baseline, so the daemon's own
   * typing does not count as the agent's activity.
   */
  async rebase(name: string, screen?: string): Promise<void> {
    const text = screen ?? (await this.tmux.capture([name])).get(name)
    if (text !== undefined) this.baselines.set(name, { hash: hashOf(text), text })
  }

  forget(name: string): void {
    this.baselines.delete(name)
  }
}

/** The agent's last lines, without the notice tmux prints under a dead pane. */
export function lastWords(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^Pane is dead\b/.test(line))
  return lines.slice(-3).join(' ')
}
