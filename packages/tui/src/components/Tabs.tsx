import { Box, Text } from 'ink'
import { STREAM_DETACH, viaStream } from '../keys.js'
import { useLocalDaemon } from '../local-daemon.js'
import type { Session } from '../state/types.js'
import { Form } from './Form.js'
import { useDialogKeys } from './KeyRoot.js'
import { useRefState } from './use-ref-state.js'

export type TabChoice = { attach: { index: number; name: string; tmuxName: string } } | { open: { shell: true } | { command: string } }

export interface TabsProps {
  session: Session
  onChoose: (choice: TabChoice) => void
  onCancel: () => void
}

/** `t`: the session's tabs; enter attaches to one, `s` opens a shell, `c` a process (then attaches to it). */
export function Tabs({ session, onChoose, onCancel }: TabsProps) {
  const local = useLocalDaemon()
  const [at, setAt] = useRefState(0)
  const [asking, setAsking] = useRefState(false)
  const tabs = session.tabs
  // While asking, the process form (drawn later) takes the keys.
  useDialogKeys((input, key) => {
    if (key.escape || input === 'q') return onCancel()
    if (key.upArrow || input === 'k') return setAt(Math.max(0, at() - 1))
    if (key.downArrow || input === 'j') return setAt(Math.min(tabs.length - 1, at() + 1))
    if (input === 's') return onChoose({ open: { shell: true } })
    if (input === 'c') return setAsking(true)
    const tab = tabs[at()]
    if (key.return && tab?.tmux_name) onChoose({ attach: { index: at(), name: tab.name, tmuxName: tab.tmux_name } })
  })
  if (asking()) {
    return (
      <Form
        title={`New process tab in ${session.title}`}
        fields={[{ name: 'command', label: 'command', kind: 'text', placeholder: 'npm run dev' }]}
        initial={{ command: '' }}
        onSubmit={(values) => (values.command ? onChoose({ open: { command: values.command } }) : setAsking(false))}
        onCancel={() => setAsking(false)}
      />
    )
  }
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{`Tabs of ${session.title}`}</Text>
      {tabs.map((tab, index) => (
        <Text key={tab.id ?? tab.name} inverse={index === at()} wrap="truncate-end">
          {`${index} ${tab.kind_name.padEnd(8)}${tab.name}${tab.command ? `  ${tab.command}` : ''}${tab.url ? `  ${tab.url}` : ''}`}
        </Text>
      ))}
      <Text color="gray">{`enter attach${viaStream(session, local) ? ` (${STREAM_DETACH})` : ''}  s new shell  c new process  esc back`}</Text>
    </Box>
  )
}
