/**
 * Whether a process with this pid exists. EPERM means it exists but belongs to another
 * user (signal 0 is still checked for permission), so it counts as alive.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
