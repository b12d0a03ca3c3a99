import type { LivenessName } from './vocab.js'

/**
 * The color family of a state, the same in every client: the terminal UI maps it to a
 * terminal color, the web UI to its theme's color. "attention" is the "needs you" mark.
 */
export type StateTone = 'running' | 'ready' | 'attention' | 'limit' | 'lost' | 'archived' | 'busy'

export interface StateLook {
  /** One terminal cell, so columns line up whatever the state. */
  glyph: string
  word: string
  tone: StateTone
}

const LOOKS: Record<LivenessName, Omit<StateLook, 'word'>> = {
  running: { glyph: '▶', tone: 'running' },
  ready: { glyph: '●', tone: 'ready' },
  'limit-reached': { glyph: '◆', tone: 'limit' },
  lost: { glyph: '?', tone: 'lost' },
  dead: { glyph: '✗', tone: 'lost' },
  archived: { glyph: '▪', tone: 'archived' },
}

/** A session's state as people read it: `liveness_name`, else (an operation in flight) the status word. Never color alone: a glyph and a word come with it. */
export function stateLook(session: { liveness_name: LivenessName | ''; status_name: string }): StateLook {
  if (session.liveness_name === '') return { glyph: '…', word: session.status_name || 'busy', tone: 'busy' }
  return { ...LOOKS[session.liveness_name], word: session.liveness_name }
}
