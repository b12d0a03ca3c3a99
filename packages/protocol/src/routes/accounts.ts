import * as a from '../schemas/accounts.js'
import { rpc, type RequiredField } from './define.js'

/** The hint names core's ACCOUNT_AGENTS, the agents that take accounts (a core test holds it to them). */
const agent: RequiredField<'agent'> = { field: 'agent', hint: 'one of claude, codex' }

export const accountRoutes = [
  rpc('ListAccounts', 'accounts', 'Agent accounts registered on the daemon host, each with its logged-in state, and the agents that take accounts', a.ListAccountsRequest, a.ListAccountsResponse),
  rpc('RegisterAccount', 'accounts', "Create an account's credential directory (0700) without logging in; idempotent", a.RegisterAccountRequest, a.RegisterAccountResponse, {
    required: [agent, 'name'],
  }),
  rpc('AccountLogin', 'accounts', "Open the agent's own login flow in a bare tmux session scoped to one account; registers it when missing", a.AccountLoginRequest, a.AccountLoginResponse, {
    required: [agent, 'name'],
  }),
] as const
