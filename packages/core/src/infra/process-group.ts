import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** `$SHELL -c command` in `cwd`, as the leader of a new process group, so the whole tree can be stopped. */
export function spawnGroup(command: string, cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(env.SHELL || '/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // ESRCH: nobody left to signal.
  }
}

/** Whether any member of the process group still runs (zombies do not count). */
export async function groupAlive(pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  // kill() also reaches zombies that no one reaps (a container's init may not), so ask
  // ps whether a member is still running.
  const { stdout } = await run('ps', ['-A', '-o', 'pgid=,stat='])
  return stdout.split('\n').some((line) => {
    const [group, state] = line.trim().split(/\s+/)
    return Number(group) === pgid && state !== undefined && !state.startsWith('Z')
  })
}

async function gone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (await groupAlive(pgid)) {
    if (Date.now() > deadline) return false
    await sleep(25)
  }
  return true
}

/**
 * SIGTERM to every process in the group, SIGKILL to what is left after `graceMs`;
 * resolves once no member runs, and rejects if one survives even SIGKILL.
 */
export async function stopGroup(pgid: number, graceMs = 2000): Promise<void> {
  signalGroup(pgid, 'SIGTERM')
  if (await gone(pgid, graceMs)) return
  signalGroup(pgid, 'SIGKILL')
  if (!(await gone(pgid, 5000))) throw new Error(`process group ${pgid} survived SIGKILL`)
}

/** A process group as a journal keeps it across a daemon's death: its id, and what its leader runs. */
export interface LedGroup {
  pgid: number
  command: string
}

/** Whether `pgid` still leads a process running `command` (and not a stranger that reused the pid). */
export async function stillLeads({ pgid, command }: LedGroup): Promise<boolean> {
  if (!(await groupAlive(pgid))) return false
  const args = await run('ps', ['-o', 'args=', '-p', String(pgid)]).then(
    ({ stdout }) => stdout.trim(),
    () => '',
  )
  return args.includes(command)
}
