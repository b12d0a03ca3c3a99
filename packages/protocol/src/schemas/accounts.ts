import Type from 'typebox'
import { Closed, Request } from './common.js'

export const Account = Closed({
  agent: Type.String(),
  name: Type.String(),
  /** Whether the agent's credential file exists in the account's directory (never read). */
  logged_in: Type.Boolean(),
  /** The account's credential directory on the daemon's host. */
  path: Type.String(),
})

export const ListAccountsRequest = Request({ agent: Type.String(), repo_path: Type.String() })
export const ListAccountsResponse = Closed({
  accounts: Type.Array(Account),
  /** The agents an account can be registered for. */
  agents: Type.Array(Type.String()),
})

export const RegisterAccountRequest = Request({ agent: Type.String(), name: Type.String() })
export const RegisterAccountResponse = Closed({
  ok: Type.Literal(true),
  /** False when the account existed already. */
  created: Type.Boolean(),
})

export const AccountLoginRequest = Request({ agent: Type.String(), name: Type.String() })
export const AccountLoginResponse = Closed({
  tmux_session: Type.String(),
  tmux_socket: Type.String(),
  /** The command that attaches a terminal to the login flow. */
  attach_command: Type.String(),
  logged_in: Type.Boolean(),
})
