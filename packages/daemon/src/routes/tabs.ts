import type { Sessions } from '@svc/core'
import type { GroupHandlers } from './group.js'

export function tabRoutes(sessions: Sessions): GroupHandlers<'tabs'> {
  return {
    CreateTab: (body) => sessions.createTab(body),
    CloseTab: async (body) => ({ name: await sessions.closeTab(body) }),
    RenameTab: async (body) => ({ ok: true, name: await sessions.renameTab(body) }),
    ReorderTab: async (body) => ({ ok: true, ...(await sessions.reorderTab(body)) }),
  }
}
