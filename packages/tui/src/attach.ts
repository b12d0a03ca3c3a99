import { spawn } from 'node:child_process'
import type { Client } from '@svc/protocol'

/** Renewed well inside the daemon's 3 s lease. */
const RENEW_MS = 1_000

/** What the terminal attaches to: a tmux session, and the svc session whose status poll pauses meanwhile (none for the config assistant). */
export interface AttachTarget {
  tmuxSocket: string
  tmuxName: string
  leaseOn?: string
}

/**
 * Lends this terminal to `tmux attach` on the daemon's own tmux server (the local case)
 * until the person detaches (Ctrl-b d), holding a status-poll lease meanwhile so the
 * daemon does not take their typing for the agent's work.
 */
export async function attachTmux(client: Client, target: AttachTarget): Promise<number | null> {
  const lease = target.leaseOn === undefined ? undefined : { id: target.leaseOn, holder: `tui-${process.pid}` }
  // An away daemon has no poll to pause.
  const renew = () => (lease ? client.call('PauseStatusPoll', lease).catch(() => undefined) : Promise.resolve())
  await renew()
  const timer = setInterval(() => void renew(), RENEW_MS)
  try {
    // Without TMUX: svc may itself run inside tmux, and this is another server's session.
    const { TMUX: _, ...env } = process.env
    const child = spawn('tmux', ['-S', target.tmuxSocket, 'attach-session', '-t', `=${target.tmuxName}`], { stdio: 'inherit', env })
    return await new Promise<number | null>((resolve) => {
      child.on('error', () => resolve(null))
      child.on('exit', (code) => resolve(code))
    })
  } finally {
    clearInterval(timer)
    if (lease) await client.call('ResumeStatusPoll', lease).catch(() => undefined)
  }
}
