import { SVC_VERSION } from '@svc/protocol'
import type { Core } from '@svc/core'
import type { ListenerStatus } from '../listeners.js'

import type { GroupHandlers } from './group.js'

export interface ListenerReport {
  unixBound: boolean
  tcp: ListenerStatus
  preview: ListenerStatus
}

export function healthRoutes(core: Core, listeners: () => ListenerReport): GroupHandlers<'health'> {
  return {
    Health: () => {
      const { unixBound, tcp, preview } = listeners()
      return {
        ok: true,
        version: SVC_VERSION,
        boot_id: core.bootId,
        phase: core.phase,
        pid: process.pid,
        listeners: {
          http_unix_bound: unixBound,
          tcp_configured: tcp.configured,
          tcp_bound: tcp.bound,
          tcp_bound_addr: tcp.addr,
          ...(tcp.error ? { tcp_error: tcp.error } : {}),
          preview_configured: preview.configured,
          preview_bound: preview.bound,
          preview_bound_addr: preview.addr,
          ...(preview.error ? { preview_error: preview.error } : {}),
        },
      }
    },
    AuthInfo: (_body, { tokenRequired }) => ({ token_required: tokenRequired, cookie_login: true }),
  }
}
