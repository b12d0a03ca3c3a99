import { SVC_VERSION, type ResponseOf } from '@svc/protocol'
import type { Core } from '@svc/core'
import type { ListenerStatus } from '../listeners.js'
import { PreEncoded, type GroupHandlers } from './group.js'

export interface ListenerReport {
  unixBound: boolean
  tcp: ListenerStatus
  preview: ListenerStatus
}

/** What a daemon started as `svc agent-server` serves. */
export interface AgentServerInfo {
  /** The root of the one checkout it serves. */
  workspace: string
}

/** The Health answer, encoded again only when the phase or a listener changed: supervisors poll it. */
function healthAnswer(core: Core, listeners: () => ListenerReport, agentServer?: AgentServerInfo): () => PreEncoded<ResponseOf<'Health'>> {
  let last: { phase: Core['phase']; report: ListenerReport; answer: PreEncoded<ResponseOf<'Health'>> } | undefined
  return () => {
    const report = listeners()
    if (last?.report !== report || last.phase !== core.phase) {
      last = { phase: core.phase, report, answer: PreEncoded.of(JSON.stringify(healthOf(core, report, agentServer))) }
    }
    return last.answer
  }
}

function healthOf(core: Core, { unixBound, tcp, preview }: ListenerReport, agentServer?: AgentServerInfo): ResponseOf<'Health'> {
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
    ...(agentServer ? { agent_server: { workspace: agentServer.workspace } } : {}),
  }
}

export function healthRoutes(core: Core, listeners: () => ListenerReport, agentServer?: AgentServerInfo): GroupHandlers<'health'> {
  return {
    Health: healthAnswer(core, listeners, agentServer),
    AuthInfo: (_body, { tokenRequired }) => ({ token_required: tokenRequired, cookie_login: true }),
  }
}
