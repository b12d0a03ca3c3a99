import Type from 'typebox'
import { Closed } from './common.js'

export const HealthResponse = Closed({
  ok: Type.Literal(true),
  version: Type.String(),
  boot_id: Type.String(),
  phase: Type.Union([Type.Literal('warming'), Type.Literal('ready')]),
  pid: Type.Integer(),
  listeners: Closed({
    http_unix_bound: Type.Boolean(),
    tcp_configured: Type.Boolean(),
    tcp_bound: Type.Boolean(),
    tcp_bound_addr: Type.String(),
    tcp_error: Type.Optional(Type.String()),
    preview_configured: Type.Boolean(),
    preview_bound: Type.Boolean(),
    preview_bound_addr: Type.String(),
    preview_error: Type.Optional(Type.String()),
  }),
  /** Only on a daemon started as `svc agent-server`: the checkout it serves. */
  agent_server: Type.Optional(Closed({ workspace: Type.String() })),
})

/** What a browser needs before it has logged in; answered without a token. */
export const AuthInfoResponse = Closed({
  /** Whether this listener asks this caller for the token. */
  token_required: Type.Boolean(),
  /** A valid `?token=` on a GET is traded for a session cookie. */
  cookie_login: Type.Literal(true),
})
