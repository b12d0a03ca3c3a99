import type { Sessions } from '@svc/core'
import type { GroupHandlers } from './group.js'

export function terminalRoutes(sessions: Sessions): GroupHandlers<'terminal'> {
  return {
    Preview: (body) => sessions.preview(body),
    PauseStatusPoll: (body, { connection }) => ({ ok: true, expires_at: sessions.pauseStatusPoll(body, connection).toISOString() }),
    ResumeStatusPoll: (body, { connection }) => {
      sessions.resumeStatusPoll(body, connection)
      return { ok: true }
    },
  }
}
