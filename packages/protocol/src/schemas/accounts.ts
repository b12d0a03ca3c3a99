import Type from 'typebox'
import { Closed, Ok, Request } from './common.js'

export const ListAccountsRequest = Request({ agent: Type.String(), repo_path: Type.String() })
export const ListAccountsResponse = Closed({
  accounts: Type.Array(Closed({ agent: Type.String(), name: Type.String(), logged_in: Type.Boolean() })),
  agents: Type.Array(Type.String()),
})

export const RegisterAccountRequest = Request({ agent: Type.String(), name: Type.String() })
export const RegisterAccountResponse = Ok

export const AccountLoginRequest = Request({ agent: Type.String(), name: Type.String() })
export const AccountLoginResponse = Closed({
  tmux_session: Type.String(),
  tmux_socket: Type.String(),
  logged_in: Type.Boolean(),
})
