import { UnreachableError, type Client, type RequestOf } from '@svc/protocol'
import type { AttachTarget } from '../attach.js'
import { viaStream } from '../keys.js'
import type { Live } from '../live.js'
import { handoff, refusal, type HandoffRequest } from '../refusal.js'
import type { Session, Task } from '../state/types.js'
import type { Values } from './Form.js'
import type { Notice } from './Header.js'
import type { TabChoice } from './Tabs.js'

export interface CommandContext {
  client: Client
  live: Live
  say: (notice: Notice) => void
  /** Closes the screen to lend the terminal to `target`. */
  lend: (target: AttachTarget) => void
  select: (id: string) => void
  /** The daemon runs on this machine (see LocalDaemon). */
  local: boolean
}

export type Commands = ReturnType<typeof commands>

/** What the screen's keys and dialogs do: each call says what it is doing, then how it went, the daemon's refusal included. */
export function commands({ client, live, local, say, lend, select }: CommandContext) {
  const act = (doing: string, work: () => Promise<Notice | string>) => {
    say({ text: `${doing}…`, error: false })
    work().then(
      (done) => say(typeof done === 'string' ? { text: done, error: false } : done),
      (error: unknown) => {
        if (error instanceof UnreachableError) live.lost()
        say({ text: `${doing} failed: ${refusal(error)}`, error: true })
      },
    )
  }
  /** The tab at `index`: a hook session's through the daemon's stream (its tmux is the remote's), a local one's through tmux. */
  const attach = (session: Session, index: number, tab: { name: string; tmuxName: string }) => {
    live.markSeen(session.id)
    const label = `${session.title} (${tab.name})`
    lend(viaStream(session, local) ? { label, stream: { id: session.id, tab: index } } : { label, tmuxName: tab.tmuxName, leaseOn: session.id })
  }
  return {
    attachAgent: (session: Session): void => {
      const agent = session.tabs[0]
      if (agent?.tmux_name) attach(session, 0, { name: agent.name, tmuxName: agent.tmux_name })
    },
    chooseTab: (session: Session, choice: TabChoice): void => {
      if ('attach' in choice) return attach(session, choice.attach.index, choice.attach)
      act(`opening a tab in ${session.title}`, async () => {
        const tab = await client.call('CreateTab', { id: session.id, ...choice.open })
        // A new tab comes last.
        if (tab.tmux_name !== undefined) attach(session, session.tabs.length, { name: tab.name, tmuxName: tab.tmux_name })
        return `opened ${tab.name}`
      })
    },
    configAssistant: (): void => {
      act('opening the config assistant', async () => {
        const { session_name } = await client.configAssistant.open()
        lend(local ? { label: 'the config assistant', tmuxName: session_name } : { label: 'the config assistant', stream: 'config-assistant' })
        return 'opened the config assistant'
      })
    },
    archive: (session: Session): void => {
      act(`archiving ${session.title}`, async () => `archived ${session.title} to ${(await client.call('ArchiveSession', { id: session.id })).archived_path}`)
    },
    restore: (session: Session): void => {
      act(`restoring ${session.title}`, async () => {
        await client.call('RestoreSession', { id: session.id })
        return `restored ${session.title}`
      })
    },
    create: (request: RequestOf<'CreateSession'>): void => {
      act(`creating ${request.title ?? 'a session'}`, async () => {
        const { instance } = await client.call('CreateSession', request)
        select(instance.id)
        return `created ${instance.title} on ${instance.branch}`
      })
    },
    prompt: (session: Session, prompt: string): void => {
      act(`sending the prompt to ${session.title}`, async () => {
        const { status } = await client.call('SendPrompt', { id: session.id, prompt })
        return { text: `prompt to ${session.title}: ${status}`, error: status === 'not-delivered' }
      })
    },
    kill: (session: Session): void => {
      act(`killing ${session.title}`, async () => {
        await client.call('KillSession', { id: session.id })
        return `killed ${session.title}`
      })
    },
    handoff: (session: Session, request: HandoffRequest): void => {
      act(`handing ${session.title} off`, async () => {
        await handoff(client, request)
        return `handed ${session.title} off${request.to ? ` to ${request.to}` : ''}`
      })
    },
    toggleTask: (task: Task): void => {
      act(`${task.enabled ? 'disabling' : 'enabling'} ${task.name}`, async () => {
        await client.call('UpdateTask', { id: task.id, update: { enabled: !task.enabled }, actor: 'tui' })
        return `${task.name} ${task.enabled ? 'disabled' : 'enabled'}`
      })
    },
    triggerTask: (task: Task): void => {
      act(`running ${task.name}`, async () => {
        await client.call('TriggerTask', { id: task.id })
        return `${task.name} started`
      })
    },
    addTask: (values: Values): void => {
      act(`adding ${values.name || 'a task'}`, async () => {
        const { task } = await client.call('AddTask', { task: values, actor: 'tui' })
        return `added ${task.name}`
      })
    },
  }
}
