import { readCreationIntents, readSessionRecords } from '@svc/core'
import type { ServicePaths } from '@svc/protocol'

/**
 * What svc's records name: the session records, and the creations under way (an intent
 * is written before anything it names is made, and removed only once the record is), so a
 * piece a create is making right now is named too.
 */
export interface Named {
  ids: Set<string>
  tmuxNames: Set<string>
  /** Worktree paths, archived ones included. */
  paths: Set<string>
  /** `<repository root>\0<branch>`. */
  branches: Set<string>
  /** Repository roots sessions and creations use. */
  repos: Set<string>
  /** The ssh_hosts names ssh sessions and creations run on (their shared masters' directories). */
  sshHosts: Set<string>
  /** The docker.host engines on other machines docker sessions and creations run on (their masters' directories). */
  engines: Set<string>
  /** Record or intent files that do not parse: what they name is unknown, so nothing is removed. */
  unreadable: string[]
}

export const branchKey = (root: string, branch: string) => `${root}\0${branch}`

/** Reads the records from the state directory, as they are now; changes nothing. */
export async function readNamed(paths: ServicePaths): Promise<Named> {
  const [sessions, creations] = await Promise.all([readSessionRecords(paths.sessionRecords), readCreationIntents(paths.creating)])
  const named: Named = {
    ids: new Set(),
    tmuxNames: new Set(),
    paths: new Set(),
    branches: new Set(),
    repos: new Set(),
    sshHosts: new Set(),
    engines: new Set(),
    unreadable: [...sessions.unreadable, ...creations.unreadable].map((file) => file.path),
  }
  for (const record of sessions.values) {
    named.ids.add(record.id)
    for (const tab of record.tabs) if (tab.tmux_name) named.tmuxNames.add(tab.tmux_name)
    named.paths.add(record.path)
    if (record.archived_path) named.paths.add(record.archived_path)
    named.branches.add(branchKey(record.repo_path, record.branch))
    named.repos.add(record.repo_path)
    if (record.remote?.ssh_host) named.sshHosts.add(record.remote.ssh_host)
    if (record.remote?.docker?.engine?.name) named.engines.add(record.remote.docker.engine.name)
  }
  for (const intent of creations.values) {
    named.ids.add(intent.id)
    if (intent.tmux_name) named.tmuxNames.add(intent.tmux_name)
    if (intent.worktree) {
      named.paths.add(intent.worktree.path)
      named.branches.add(branchKey(intent.repo_path, intent.worktree.branch))
    }
    named.repos.add(intent.repo_path)
    if (intent.hook?.ssh?.name) named.sshHosts.add(intent.hook.ssh.name)
    if (intent.hook?.docker?.engine?.name) named.engines.add(intent.hook.docker.engine.name)
  }
  return named
}
