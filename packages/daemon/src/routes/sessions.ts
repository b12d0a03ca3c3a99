import { backends, programs, type Core } from '@svc/core'
import { PreEncoded, type GroupHandlers } from './group.js'

export function sessionRoutes({ sessions, resolver, env }: Core): GroupHandlers<'sessions'> {
  return {
    CreateSession: async (body) => ({ instance: sessions.describe(await sessions.create(body)) }),
    ListBackends: async ({ repo_path }) => backends(await resolver.inForce(repo_path)),
    ListPrograms: async ({ repo_path }) => programs((await resolver.inForce(repo_path)).settings, env.PATH),
    SuggestSessionName: () => ({ name: sessions.suggestName() }),
    Snapshot: (body) => PreEncoded.of(sessions.snapshotJson(body)),
    KillSession: async (body) => {
      await sessions.kill(body)
      return { ok: true }
    },
    ArchiveSession: async (body) => ({ ok: true, archived_path: await sessions.archive(body) }),
    RestoreArchived: async (body) => ({ ok: true, worktree_path: await sessions.restoreArchived(body) }),
    RestoreSession: async (body) => {
      await sessions.restoreSession(body)
      return { ok: true }
    },
    SendPrompt: async (body) => ({ ok: true, status: await sessions.sendPrompt(body) }),
    ResumeFromLimit: async (body) => {
      await sessions.resumeFromLimit(body)
      return { ok: true }
    },
    HandoffSession: (body) => sessions.handoff(body),
    DeliverPrompt: (body) => sessions.deliverPromptTo(body),
  }
}
