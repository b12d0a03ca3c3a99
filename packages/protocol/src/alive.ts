import { readFileSync } from 'node:fs'

/**
 * The state letter of a `/proc/<pid>/stat` line (`R`, `S`, `Z`…). The command name in
 * parentheses may itself hold spaces and `)`, so the state is read after the last `)`.
 */
export function procState(stat: string): string | undefined {
  return /^\s*(\S)/.exec(stat.slice(stat.lastIndexOf(')') + 1))?.[1]
}

/** Whether /proc says the process is a zombie: exited, only not yet reaped by its parent. */
function zombie(pid: number): boolean {
  try {
    return procState(readFileSync(`/proc/${pid}/stat`, 'utf8')) === 'Z'
  } catch {
    // No /proc here (or the process just went): kill(0) has answered already.
    return false
  }
}

/**
 * Whether a process with this pid exists. EPERM means it exists but belongs to another
 * user (signal 0 is still checked for permission), so it counts as alive. A zombie
 * (a killed daemon whose parent has not reaped it yet) has exited, so it does not.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return !zombie(pid)
}
