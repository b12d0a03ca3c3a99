import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { quote } from '@svc/protocol'
import { ACCOUNT_AGENTS, AGENTS, agentNamed, takesAccounts, type AccountAgent, type Agent } from '../agents/agent.js'
import { InvalidRequest, Refused } from '../errors.js'

const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** The agent an account request names; only agents with a credential home take accounts. */
export function accountAgent(name: string): AccountAgent {
  const agent = agentNamed(name)
  if (!takesAccounts(agent)) {
    throw new InvalidRequest(`agent ${quote(name)} has no accounts; accounts are for ${ACCOUNT_AGENTS.join(', ')}`)
  }
  return agent
}

export function checkAccountName(name: string): string {
  if (!ACCOUNT_NAME.test(name)) {
    throw new InvalidRequest(
      `account name ${quote(name)} is not usable: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    )
  }
  return name
}

/** `accounts/<agent>/<name>/` under SERVICE_HOME. */
export function accountDir(root: string, agent: Agent, name: string): string {
  return join(root, agent.name, name)
}

/** The account names registered for `agent`. */
export function accountNames(root: string, agent: Agent): string[] {
  try {
    return readdirSync(join(root, agent.name), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && ACCOUNT_NAME.test(entry.name))
      .map((entry) => entry.name)
      .sort()
  } catch {
    return []
  }
}

/** Presence only: the credential file is never opened. */
export function loggedIn(agent: AccountAgent, dir: string): boolean {
  return existsSync(join(dir, agent.credentialFile))
}

/**
 * The directory of an existing account for the agent a session runs. An account of
 * another agent, or an agent without accounts, is refused with what would work.
 */
export function resolveAccount(root: string, agent: Agent | undefined, program: string, name: string): string {
  checkAccountName(name)
  if (!takesAccounts(agent)) {
    throw new InvalidRequest(
      `program ${quote(program)} takes no account; accounts are for ${ACCOUNT_AGENTS.join(', ')}`,
    )
  }
  const dir = accountDir(root, agent, name)
  if (existsSync(dir)) return dir
  const owner = Object.values(AGENTS).find((other) => takesAccounts(other) && existsSync(accountDir(root, other, name)))
  if (owner) {
    throw new Refused(`account ${quote(name)} is a ${owner.name} account, and this session runs ${agent.name}; use a ${agent.name} account`)
  }
  throw new InvalidRequest(`unknown ${agent.name} account ${quote(name)}; register it with RegisterAccount (svc accounts register ${agent.name} ${name})`)
}

/**
 * An account's environment: the agent's credential home points at the account, and the
 * variables that would carry another identity are removed, whatever the daemon's own
 * environment holds.
 */
export function accountEnvironment(env: Record<string, string>, agent: AccountAgent, dir: string): Record<string, string> {
  const scoped = Object.fromEntries(Object.entries(env).filter(([name]) => !agent.accountScoped.includes(name)))
  return { ...scoped, [agent.accountHome]: dir }
}
