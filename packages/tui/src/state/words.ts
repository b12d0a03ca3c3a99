// The words of idle reasons, ages and projects are shared with the web UI and the CLI: see @svc/protocol's words.ts.
export { age, duration, idleWords, killWords, projectName, remoteWords } from '@svc/protocol'
import { stateWord, type LivenessName } from '@svc/protocol'
import type { Session } from './types.js'

/** One terminal cell each, so columns line up whatever the state. */
const GLYPHS: Record<LivenessName, string> = {
  running: '▶',
  ready: '●',
  'limit-reached': '◆',
  lost: '?',
  dead: '✗',
  archived: '▪',
}

/** The state glyph and word: `liveness_name`, else (an operation in flight) the status word. */
export function stateOf(session: Pick<Session, 'liveness_name' | 'status_name'>): { glyph: string; word: string } {
  return { glyph: session.liveness_name === '' ? '…' : GLYPHS[session.liveness_name], word: stateWord(session) }
}
