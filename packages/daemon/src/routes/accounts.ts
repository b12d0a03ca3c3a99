import type { Accounts } from '@svc/core'
import type { GroupHandlers } from './group.js'

export function accountRoutes(accounts: Accounts): GroupHandlers<'accounts'> {
  return {
    ListAccounts: (body) => accounts.list(body),
    RegisterAccount: (body) => accounts.register(body),
    AccountLogin: (body) => accounts.login(body),
  }
}
