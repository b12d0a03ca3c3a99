import { backends, programs, type Core } from '@svc/core'
import { PreEncoded, type GroupHandlers } from './group.js'

/** What a route asks of one session, the runtime it runs on does (`runtimeOf`). */
export function sessionRoutes({ sessions, resolver, env }: Core): GroupHandlers<'sessions'> {
  return {
    CreateSession: async (body) => ({ instance: sessions.wire.describe(await sessions.lifecycle.create(body)) }),
    ListBackends: async ({ repo_path }) => backends(await resolver.inForce(repo_path), await sessions.docker.unavailable()),
    ListPrograms: async ({ repo_path }) => programs((await resolver.inForce(repo_path)).settings, env.PATH),
    SuggestSessionName: () => ({ name: sessions.suggestName() }),
    Snapshot: (body) => PreEncoded.of(sessions.wire.snapshotJson(body)),
    KillSession: async (body) => {
      await sessions.runtimeOf(body).kill(body)
      return { ok: true }
    },
    ArchiveSession: (body) => sessions.runtimeOf(body).archive(body),
    RestoreArchived: async (body) => ({ ok: true, worktree_path: await sessions.runtimeOf(body).restoreArchived(body) }),
    RestoreSession: async (body) => {
      await sessions.runtimeOf(body).restoreSession(body)
      return { ok: true }
    },
    SendPrompt: (body) => sessions.runtimeOf(body).sendPrompt(body),
    ResumeFromLimit: async (body) => {
      await sessions.runtimeOf(body).resumeFromLimit(body)
      return { ok: true }
    },
    HandoffSession: (body) => sessions.runtimeOf(body).handoff(body),
    DeliverPrompt: (body) => sessions.deliverPromptTo(body),
  }
}
