import { useEffect, useMemo, useState, useSyncExternalStore } from 'react'
import { UnreachableError, type Client, type RequestOf } from '@svc/protocol'
import type { AttachTarget } from '../attach.js'
import { viaStream } from '../keys.js'
import type { Live } from '../live.js'
import { handoff, refusal } from '../refusal.js'
import { moveSelection, sessionRows } from '../state/rows.js'
import type { Session } from '../state/types.js'
import { killWords } from '../state/words.js'
import { Confirm } from './Confirm.js'
import { Filter } from './Filter.js'
import { Form } from './Form.js'
import { Handoff } from './Handoff.js'
import type { Notice } from './Header.js'
import { Help } from './Help.js'
import { NewSession, projectChoices } from './NewSession.js'
import { bodyHeight, Screen } from './Screen.js'
import { Tabs, type TabChoice } from './Tabs.js'
import { Tasks } from './Tasks.js'
import { usePreview } from './usePreview.js'
import { useTerminalSize } from './useTerminalSize.js'
import { useKeys } from './useKeys.js'
import { useRefState } from './useRefState.js'

/**
 * Why the screen closed: the person quit, or it lends the terminal and comes back: to tmux
 * (a local session's tab, leasing its status poll, or the config assistant), or to the
 * daemon's terminal stream (a hook session's tab, on its remote).
 */
export type Outcome = { quit: true } | { attach: AttachTarget }

/** What the screen keeps across an attach, when it is unmounted and made again. */
export interface Memory {
  selected: string | undefined
  filter: string
  attentionFirst: boolean
  notice: Notice | undefined
}

type Dialog = 'help' | 'filter' | 'new' | 'prompt' | 'kill' | 'handoff' | 'tabs' | 'tasks' | undefined

export interface AppProps {
  client: Client
  live: Live
  cwd: string
  memory: Memory
  onExit: (outcome: Outcome) => void
}

const PAGE = 10

export function App({ client, live, cwd, memory, onExit }: AppProps) {
  const { fleet, connection } = useSyncExternalStore(live.subscribe, live.current)
  const { width, height } = useTerminalSize()
  const [now, setNow] = useState(Date.now)
  const [selectedId, setSelectedId] = useRefState(memory.selected)
  const [filter, setFilter] = useState(memory.filter)
  const [attentionFirst, setAttentionFirst] = useState(memory.attentionFirst)
  const [notice, setNotice] = useState(memory.notice)
  const [dialog, setDialog] = useRefState<Dialog>(undefined)

  Object.assign(memory, { selected: selectedId(), filter, attentionFirst, notice })
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000)
    return () => clearInterval(timer)
  }, [])

  const rows = useMemo(() => sessionRows(fleet, { filter, attentionFirst }), [fleet, filter, attentionFirst])
  /** The selection, or the first session when it is filtered out or gone. */
  const selectedKey = () => (rows.some((row) => row.key === selectedId()) ? selectedId() : moveSelection(rows, undefined, 0))
  const selectedOf = () => {
    const key = selectedKey()
    return key === undefined ? undefined : fleet.sessions.get(key)
  }
  const selected = selectedOf()
  const preview = usePreview(client, selected)

  const select = (id: string | undefined) => {
    setSelectedId(id)
    if (id !== undefined) live.markSeen(id)
  }
  /**
   * After this read's keys: a dialog's handler may run before this screen's within one
   * read, and the keys that closed the dialog must not reach the list as well.
   */
  const close = () => setImmediate(() => setDialog(undefined))

  /** Runs one call, saying what it is doing and then how it went, the daemon's refusal included. */
  const act = (doing: string, work: () => Promise<Notice | string>) => {
    setNotice({ text: `${doing}…`, error: false })
    work().then(
      (done) => setNotice(typeof done === 'string' ? { text: done, error: false } : done),
      (error: unknown) => {
        if (error instanceof UnreachableError) live.lost()
        setNotice({ text: `${doing} failed: ${refusal(error)}`, error: true })
      },
    )
  }
  /** A dialog's answer: the dialog goes, the call runs. */
  const submit: typeof act = (doing, work) => {
    close()
    act(doing, work)
  }
  /** The tab at `index`: a hook session's through the daemon's stream (its tmux is the remote's), a local one's through tmux. */
  const attach = (session: Session, index: number, tab: { name: string; tmuxName: string }) => {
    live.markSeen(session.id)
    const label = `${session.title} (${tab.name})`
    onExit({ attach: viaStream(session) ? { label, stream: { id: session.id, tab: index } } : { label, tmuxName: tab.tmuxName, leaseOn: session.id } })
  }
  const chooseTab = (session: Session, choice: TabChoice) => {
    if ('attach' in choice) return attach(session, choice.attach.index, choice.attach)
    submit(`opening a tab in ${session.title}`, async () => {
      const tab = await client.call('CreateTab', { id: session.id, ...choice.open })
      if (tab.tmux_name === undefined) return `opened ${tab.name}`
      // A new tab comes last.
      attach(session, session.tabs.length, { name: tab.name, tmuxName: tab.tmux_name })
      return `opened ${tab.name}`
    })
  }

  useKeys(
    (input, key) => {
      const shown = dialog()
      if (shown !== undefined && shown !== 'help') return
      if (shown === 'help') return close()
      if (key.upArrow || input === 'k') return select(moveSelection(rows, selectedKey(), -1))
      if (key.downArrow || input === 'j') return select(moveSelection(rows, selectedKey(), 1))
      if (key.pageUp) return select(moveSelection(rows, selectedKey(), -PAGE))
      if (key.pageDown) return select(moveSelection(rows, selectedKey(), PAGE))
      if (key.escape) return setFilter('')
      const global: Record<string, () => void> = {
        q: () => onExit({ quit: true }),
        '?': () => setDialog('help'),
        '/': () => setDialog('filter'),
        n: () => setDialog('new'),
        T: () => setDialog('tasks'),
        C: () =>
          act('opening the config assistant', async () => {
            const { session_name } = await client.configAssistant.open()
            onExit({ attach: { label: 'the config assistant', tmuxName: session_name } })
            return 'opened the config assistant'
          }),
        s: () => setAttentionFirst(!attentionFirst),
      }
      if (global[input]) return global[input]()
      const session = selectedOf()
      if (session === undefined) return
      const agent = session.tabs[0]
      const onSession: Record<string, () => void> = {
        p: () => setDialog('prompt'),
        t: () => setDialog('tabs'),
        K: () => setDialog('kill'),
        h: () => setDialog('handoff'),
        a: () => act(`archiving ${session.title}`, async () => `archived ${session.title} to ${(await client.call('ArchiveSession', { id: session.id })).archived_path}`),
        r: () =>
          act(`restoring ${session.title}`, async () => {
            await client.call('RestoreSession', { id: session.id })
            return `restored ${session.title}`
          }),
      }
      if (key.return && session.liveness_name === 'archived') return setNotice({ text: `${session.title} is archived: r restores it`, error: true })
      if (key.return && agent?.tmux_name) return attach(session, 0, { name: agent.name, tmuxName: agent.tmux_name })
      onSession[input]?.()
    },
  )

  const dialogs = {
    filter: () => undefined,
    help: () => undefined,
    tasks: () => undefined,
    new: () => (
      <NewSession
        client={client}
        projects={fleet.projects}
        cwd={cwd}
        onCancel={close}
        onSubmit={(request: RequestOf<'CreateSession'>) =>
          submit(`creating ${request.title ?? 'a session'}`, async () => {
            const { instance } = await client.call('CreateSession', request)
            select(instance.id)
            return `created ${instance.title} on ${instance.branch}`
          })
        }
      />
    ),
    prompt: (session: Session) => (
      <Form
        title={`Prompt for ${session.title}`}
        fields={[{ name: 'prompt', label: 'prompt', kind: 'text' }]}
        initial={{ prompt: '' }}
        onCancel={close}
        onSubmit={({ prompt }) =>
          submit(`sending the prompt to ${session.title}`, async () => {
            const { status } = await client.call('SendPrompt', { id: session.id, prompt: prompt ?? '' })
            return { text: `prompt to ${session.title}: ${status}`, error: status === 'not-delivered' }
          })
        }
      />
    ),
    kill: (session: Session) => (
      <Confirm
        question={`Kill ${session.title}?`}
        detail={killWords(session)}
        onAnswer={(yes) =>
          yes
            ? submit(`killing ${session.title}`, async () => {
                await client.call('KillSession', { id: session.id })
                return `killed ${session.title}`
              })
            : close()
        }
      />
    ),
    handoff: (session: Session) => (
      <Handoff
        client={client}
        session={session}
        onCancel={close}
        onSubmit={(request) =>
          submit(`handing ${session.title} off`, async () => {
            await handoff(client, request)
            return `handed ${session.title} off${request.to ? ` to ${request.to}` : ''}`
          })
        }
      />
    ),
    tabs: (session: Session) => <Tabs session={session} onCancel={close} onChoose={(choice) => chooseTab(session, choice)} />,
  }
  const open = dialog()
  const shownDialog = open && selected ? dialogs[open](selected) : open === 'new' ? dialogs.new() : undefined

  const body = bodyHeight(height - 1)
  const view =
    open === 'help' ? (
      <Help height={body} />
    ) : open === 'tasks' ? (
      <Tasks
        tasks={[...fleet.tasks.values()]}
        projects={projectChoices(fleet.projects, cwd)}
        height={body}
        width={width}
        now={now}
        onClose={close}
        onToggle={(task) =>
          act(`${task.enabled ? 'disabling' : 'enabling'} ${task.name}`, async () => {
            await client.call('UpdateTask', { id: task.id, update: { enabled: !task.enabled }, actor: 'tui' })
            return `${task.name} ${task.enabled ? 'disabled' : 'enabled'}`
          })
        }
        onTrigger={(task) =>
          act(`running ${task.name}`, async () => {
            await client.call('TriggerTask', { id: task.id })
            return `${task.name} started`
          })
        }
        onAdd={(values) =>
          act(`adding ${values.name || 'a task'}`, async () => {
            const { task } = await client.call('AddTask', { task: values, actor: 'tui' })
            return `added ${task.name}`
          })
        }
      />
    ) : undefined

  const filterLine =
    open === 'filter' ? (
      <Filter
        value={filter}
        onChange={setFilter}
        onDone={(keep) => {
          if (!keep) setFilter('')
          close()
        }}
      />
    ) : undefined

  return (
    <Screen
      rows={rows}
      sessions={fleet.sessions.size}
      attention={fleet.attention.size}
      selected={selected}
      preview={preview}
      connection={connection}
      filter={filter}
      notice={notice}
      width={width}
      // One row short of the terminal: a frame as tall as the terminal makes ink clear it on every update.
      height={height - 1}
      now={now}
      dialog={shownDialog ?? filterLine}
      view={view}
    />
  )
}
