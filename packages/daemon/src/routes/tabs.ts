import type { Sessions } from '@svc/core'
import type { GroupHandlers } from './group.js'

/** A tab is changed by the runtime its session runs on. */
export function tabRoutes(sessions: Sessions): GroupHandlers<'tabs'> {
  return {
    CreateTab: (body) => sessions.runtimeOf(body).createTab(body),
    CloseTab: async (body) => ({ name: await sessions.runtimeOf(body).closeTab(body) }),
    RenameTab: async (body) => ({ ok: true, name: await sessions.runtimeOf(body).renameTab(body) }),
    ReorderTab: async (body) => ({ ok: true, ...(await sessions.runtimeOf(body).reorderTab(body)) }),
  }
}
