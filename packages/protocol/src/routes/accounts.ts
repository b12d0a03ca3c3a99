import * as a from '../schemas/accounts.js'
import { rpc } from './define.js'

export const accountRoutes = [
  rpc('ListAccounts', 'accounts', 'Agent accounts registered on the daemon host, each with its logged-in state, and the agents that take accounts', a.ListAccountsRequest, a.ListAccountsResponse),
  rpc('RegisterAccount', 'accounts', "Create an account's credential directory (0700) without logging in; idempotent", a.RegisterAccountRequest, a.RegisterAccountResponse),
  rpc('AccountLogin', 'accounts', "Open the agent's own login flow in a bare tmux session scoped to one account; registers it when missing", a.AccountLoginRequest, a.AccountLoginResponse),
] as const
