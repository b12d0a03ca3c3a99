import type { Core } from '@svc/core'
import type { GroupHandlers } from './group.js'

export function sessionRoutes(core: Core): GroupHandlers<'sessions'> {
  return {
    Snapshot: (body) => core.snapshot(body),
    SuggestSessionName: () => core.suggestSessionName(),
  }
}
