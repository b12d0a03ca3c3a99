import type { Tmux } from '@svc/core'
import { Terminal } from './terminal.js'

/**
 * The terminal streams: one Terminal per tmux session streamed (a session's tab, an
 * account's login), made on the first subscriber and dropped when its pty exits (the
 * tmux session went away, or it idled out).
 */
export class StreamHub {
  private readonly terminals = new Map<string, Promise<Terminal>>()

  constructor(private readonly tmux: Tmux) {}

  /** The tmux session's running terminal, started at the size of its window so attaching resizes nothing. */
  terminal(tmuxName: string): Promise<Terminal> {
    const known = this.terminals.get(tmuxName)
    if (known) return known
    const opening = this.tmux.screen(tmuxName).then(
      (screen) => new Terminal(tmuxName, this.tmux, { rows: screen.clientRows, cols: screen.cols }, () => this.terminals.delete(tmuxName)),
    )
    this.terminals.set(tmuxName, opening)
    opening.catch(() => this.terminals.delete(tmuxName))
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
