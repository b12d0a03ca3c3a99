import { spawn } from 'node:child_process'
import { ReadStream } from 'node:tty'
import type { Client } from '@svc/protocol'
import { runAttached } from './attached-terminal.js'
import type { Notice } from './components/Header.js'
import { refusal } from './refusal.js'

/** Renewed well inside the daemon's 3 s lease. */
const RENEW_MS = 1_000

/** A tmux session on the daemon's own tmux server, and the svc session whose status poll pauses meanwhile (none for the config assistant). */
export interface TmuxTarget {
  tmuxName: string
  leaseOn?: string
}

/** A session's tab (or the config assistant) through the daemon's terminal stream: how a remote session's tab, or any on a daemon on another machine, is reached. */
export interface StreamTarget {
  stream: { id: string; tab: number } | 'config-assistant'
}

/** What the terminal attaches to, named for the notice on coming back. */
export type AttachTarget = { label: string } & (TmuxTarget | StreamTarget)

/**
 * Lends this terminal to `tmux attach` on the daemon's own tmux server (the local case)
 * until the person detaches (Ctrl-b d), holding a status-poll lease meanwhile so the
 * daemon does not take their typing for the agent's work.
 */
async function attachTmux(client: Client, tmuxSocket: string, target: TmuxTarget): Promise<number | null> {
  const lease = target.leaseOn === undefined ? undefined : { id: target.leaseOn, holder: `tui-${process.pid}` }
  // An away daemon has no poll to pause.
  const renew = () => (lease ? client.call('PauseStatusPoll', lease).catch(() => undefined) : Promise.resolve())
  await renew()
  const timer = setInterval(() => void renew(), RENEW_MS)
  try {
    // Without TMUX: svc may itself run inside tmux, and this is another server's session.
    const { TMUX: _, ...env } = process.env
    const child = spawn('tmux', ['-S', tmuxSocket, 'attach-session', '-t', `=${target.tmuxName}`], { stdio: 'inherit', env })
    return await new Promise<number | null>((resolve) => {
      child.on('error', () => resolve(null))
      child.on('exit', (code) => resolve(code))
    })
  } finally {
    clearInterval(timer)
    if (lease) await client.call('ResumeStatusPoll', lease).catch(() => undefined)
  }
}

/**
 * Lends this terminal to the tab's terminal stream until the person detaches (Ctrl-\).
 * The subscriber holds the session's poll lease on the daemon (which forwards it to a
 * hook session's remote). The keys are read through a reader of its own, destroyed after:
 * process.stdin, once paused, would still read ahead the keys meant for the next screen.
 */
async function attachStream(client: Client, target: StreamTarget['stream']) {
  const stream = target === 'config-assistant' ? await client.configAssistant.stream() : await client.stream(target.id, { tab: target.tab })
  const stdin = new ReadStream(0)
  try {
    return await runAttached(stream, { stdin, stdout: process.stdout })
  } finally {
    stdin.destroy()
  }
}

/** Attaches to `target` until the person comes back, then says how it went. */
export async function attach(client: Client, tmuxSocket: string | undefined, { label, ...target }: AttachTarget): Promise<Notice> {
  if ('tmuxName' in target) {
    // Only a daemon on this machine names tmux sessions to attach to (see viaStream).
    if (tmuxSocket === undefined) return { text: `${label} is in tmux on the daemon's machine`, error: true }
    const code = await attachTmux(client, tmuxSocket, target)
    return code === 0 ? { text: `back from ${label}`, error: false } : { text: `tmux attach to ${label} failed`, error: true }
  }
  try {
    const ended = await attachStream(client, target.stream)
    if (ended === 'detached') return { text: `back from ${label}`, error: false }
    if (ended === 'closed') return { text: `the terminal of ${label} closed`, error: true }
    return { text: `${label} exited with ${ended.exit}`, error: ended.exit !== 0 }
  } catch (error) {
    return { text: `attach to ${label} failed: ${refusal(error)}`, error: true }
  }
}
