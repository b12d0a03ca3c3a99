import type { Sessions } from '@svc/core'
import type { GroupHandlers } from './group.js'

export function terminalRoutes(sessions: Sessions): GroupHandlers<'terminal'> {
  return {
    Preview: (body) => sessions.runtimeOf(body).preview(body),
    PauseStatusPoll: async (body, { connection }) => ({ ok: true, expires_at: (await sessions.pauseStatusPoll(body, connection)).toISOString() }),
    ResumeStatusPoll: async (body, { connection }) => {
      await sessions.resumeStatusPoll(body, connection)
      return { ok: true }
    },
  }
}
