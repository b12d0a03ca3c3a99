import type { Client, Fleet } from '@svc/protocol'
import type { Dialog } from '../keymap.js'
import { killWords } from '../state/words.js'
import type { Commands } from './commands.js'
import { Confirm } from './Confirm.js'
import { Filter } from './Filter.js'
import { Form } from './Form.js'
import { Handoff } from './Handoff.js'
import { Help } from './Help.js'
import { NewSession, projectChoices } from './NewSession.js'
import { Tabs } from './Tabs.js'
import { Tasks } from './Tasks.js'

export interface DialogsProps {
  dialog: Dialog
  fleet: Fleet
  client: Client
  cwd: string
  run: Commands
  filter: string
  setFilter: (filter: string) => void
  close: () => void
  /** The size of the list and preview, which help and tasks take. */
  width: number
  height: number
  now: number
}

/** Help and tasks take the place of the list and the preview; the other dialogs that of the preview. */
export const fillsScreen = (dialog: Dialog): boolean => dialog.kind === 'help' || dialog.kind === 'tasks'

/** The open dialog. An answer closes it, then makes its call; cancel only closes it. */
export function Dialogs({ dialog, fleet, client, cwd, run, filter, setFilter, close, width, height, now }: DialogsProps) {
  const answer = (call: () => void) => {
    close()
    call()
  }
  switch (dialog.kind) {
    case 'help':
      return <Help height={height} onClose={close} />
    case 'tasks':
      return (
        <Tasks
          tasks={[...fleet.tasks.values()]}
          projects={projectChoices(fleet.projects, cwd)}
          height={height}
          width={width}
          now={now}
          onClose={close}
          onToggle={run.toggleTask}
          onTrigger={run.triggerTask}
          onAdd={run.addTask}
        />
      )
    case 'filter':
      return (
        <Filter
          value={filter}
          onChange={setFilter}
          onDone={(keep) => {
            if (!keep) setFilter('')
            close()
          }}
        />
      )
    case 'new':
      return <NewSession client={client} projects={fleet.projects} cwd={cwd} onCancel={close} onSubmit={(request) => answer(() => run.create(request))} />
  }
  // The session as it is now, or as it was when the dialog opened if it has gone since.
  const session = fleet.sessions.get(dialog.session.id) ?? dialog.session
  switch (dialog.kind) {
    case 'prompt':
      return (
        <Form
          title={`Prompt for ${session.title}`}
          fields={[{ name: 'prompt', label: 'prompt', kind: 'text' }]}
          initial={{ prompt: '' }}
          onCancel={close}
          onSubmit={({ prompt }) => answer(() => run.prompt(session, prompt ?? ''))}
        />
      )
    case 'kill':
      return <Confirm question={`Kill ${session.title}?`} detail={killWords(session)} onAnswer={(yes) => answer(() => yes && run.kill(session))} />
    case 'handoff':
      return <Handoff client={client} session={session} onCancel={close} onSubmit={(request) => answer(() => run.handoff(session, request))} />
    case 'tabs':
      return <Tabs session={session} onCancel={close} onChoose={(choice) => answer(() => run.chooseTab(session, choice))} />
  }
}
