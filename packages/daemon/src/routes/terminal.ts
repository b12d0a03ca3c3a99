import type { Sessions } from '@svc/core'
import type { GroupHandlers } from './group.js'

export function terminalRoutes(sessions: Sessions): GroupHandlers<'terminal'> {
  return {
    Preview: (body) => sessions.preview(body),
    PauseStatusPoll: (body) => ({ ok: true, expires_at: sessions.pauseStatusPoll(body).toISOString() }),
    ResumeStatusPoll: (body) => {
      sessions.resumeStatusPoll(body)
      return { ok: true }
    },
  }
}
