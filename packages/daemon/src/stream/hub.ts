import type { TerminalTarget, Tmux } from '@svc/core'
import { Terminal } from './terminal.js'

/**
 * The terminal streams: one Terminal per (session, tab), made on the first subscriber
 * and dropped when its pty exits (its tab or session went away, or it idled out).
 */
export class StreamHub {
  private readonly terminals = new Map<string, Promise<Terminal>>()

  constructor(private readonly tmux: Tmux) {}

  /** The tab's running terminal, started at the size of the window so attaching resizes nothing. */
  terminal(target: TerminalTarget): Promise<Terminal> {
    const key = `${target.sessionId}/${target.tabId}`
    const known = this.terminals.get(key)
    if (known) return known
    const opening = this.tmux.screen(target.tmuxName).then(
      (screen) => new Terminal(target, this.tmux, { rows: screen.clientRows, cols: screen.cols }, () => this.terminals.delete(key)),
    )
    this.terminals.set(key, opening)
    opening.catch(() => this.terminals.delete(key))
    return opening
  }

  /** How many ptys are open. */
  get size(): number {
    return this.terminals.size
  }

  async close(): Promise<void> {
    const terminals = await Promise.allSettled(this.terminals.values())
    for (const result of terminals) if (result.status === 'fulfilled') result.value.close()
  }
}
