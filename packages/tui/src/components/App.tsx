import { useEffect, useMemo, useState, useSyncExternalStore } from 'react'
import type { Client } from '@svc/protocol'
import type { AttachTarget } from '../attach.js'
import { mainAction, type Dialog, type MainAction } from '../keymap.js'
import type { Live } from '../live.js'
import { useLocalDaemon } from '../local-daemon.js'
import { moveSelection, sessionRows } from '../state/rows.js'
import { commands } from './commands.js'
import { Dialogs, fillsScreen } from './Dialogs.js'
import type { Notice } from './Header.js'
import { KeyRoot } from './KeyRoot.js'
import { bodyHeight, Screen } from './Screen.js'
import { usePreview } from './use-preview.js'
import { useRefState } from './use-ref-state.js'
import { useTerminalSize } from './use-terminal-size.js'

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

export interface AppProps {
  client: Client
  live: Live
  cwd: string
  /** Where the last showing of the screen left off. */
  memory: Memory
  /** The screen closes: why, and what to show the next time. */
  onExit: (outcome: Outcome, memory: Memory) => void
}

/** The main screen: the fleet, the keymap's actions, and the open dialog. */
export function App({ client, live, cwd, memory, onExit }: AppProps) {
  const { fleet, connection } = useSyncExternalStore(live.subscribe, live.current)
  const { width, height } = useTerminalSize()
  const [now, setNow] = useState(Date.now)
  // Read through refs: keys that arrive before the screen is drawn again see the last key's result.
  const [selectedId, setSelectedId] = useRefState(memory.selected)
  const [dialog, setDialog] = useRefState<Dialog | undefined>(undefined)
  const [filter, setFilter] = useState(memory.filter)
  const [attentionFirst, setAttentionFirst] = useState(memory.attentionFirst)
  const [notice, setNotice] = useState(memory.notice)
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
  const leave = (outcome: Outcome) => onExit(outcome, { selected: selectedId(), filter, attentionFirst, notice })
  const run = commands({ client, live, local: useLocalDaemon(), say: setNotice, lend: (target) => leave({ attach: target }), select })
  const close = () => setDialog(undefined)

  const perform = (action: MainAction) => {
    switch (action.type) {
      case 'move':
        return select(moveSelection(rows, selectedKey(), action.step))
      case 'open':
        return setDialog(action.dialog)
      case 'quit':
        return leave({ quit: true })
      case 'clear-filter':
        return setFilter('')
      case 'sort':
        return setAttentionFirst((first) => !first)
      case 'config-assistant':
        return run.configAssistant()
      case 'archive':
        return run.archive(action.session)
      case 'restore':
        return run.restore(action.session)
      case 'attach':
        return run.attachAgent(action.session)
      case 'archived':
        return setNotice({ text: `${action.session.title} is archived: r restores it`, error: true })
    }
  }
  /** The main screen's keys; none while a dialog is on its way (its own keys start as it shows). */
  const onKey = (input: string, key: Parameters<typeof mainAction>[1]) => {
    if (dialog() !== undefined) return
    const action = mainAction(input, key, selectedOf())
    if (action) perform(action)
  }

  const open = dialog()
  const body = bodyHeight(height - 1)
  const shown = open && (
    <Dialogs dialog={open} fleet={fleet} client={client} cwd={cwd} run={run} filter={filter} setFilter={setFilter} close={close} width={width} height={body} now={now} />
  )
  return (
    <KeyRoot main={onKey}>
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
        dialog={open && !fillsScreen(open) ? shown : undefined}
        view={open && fillsScreen(open) ? shown : undefined}
      />
    </KeyRoot>
  )
}
