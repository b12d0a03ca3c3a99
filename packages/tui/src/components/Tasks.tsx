import { Box, Text } from 'ink'
import type { Task } from '../state/types.js'
import { duration, projectName } from '../state/words.js'
import { Form, type Values } from './Form.js'
import { useRefState } from './use-ref-state.js'
import { useDialogKeys } from './KeyRoot.js'

export interface TasksProps {
  tasks: readonly Task[]
  projects: readonly string[]
  height: number
  width: number
  now: number
  onToggle: (task: Task) => void
  onTrigger: (task: Task) => void
  onAdd: (values: Values) => void
  onClose: () => void
}

/** When the next run is due, from now: "in 5m", "overdue", or the reason there is none. */
export function nextRun(task: Task, now: number): string {
  if (!task.enabled) return 'disabled'
  if (task.unschedulable) return `unschedulable: ${task.unschedulable_reason ?? ''}`.trim()
  if (task.overdue) return 'overdue'
  if (task.next_run_at === undefined) return task.watch_cmd ? 'watching' : '-'
  return `in ${duration(Date.parse(task.next_run_at) - now)}`
}

/** How the task has gone: its last run, and runs it missed. */
export function health(task: Task): string {
  const missed = task.missed_occurrences > 0 ? `, missed ${task.missed_occurrences}${task.missed_occurrences_capped ? '+' : ''}` : ''
  return `${task.last_run_status || 'never run'}${missed}`
}

/** `T`: every task with its next run and health; `e` enables or disables, `x` runs it now, `n` adds one. */
export function Tasks({ tasks, projects, height, width, now, onToggle, onTrigger, onAdd, onClose }: TasksProps) {
  const [at, setAt] = useRefState(0)
  const [adding, setAdding] = useRefState(false)
  const sorted = [...tasks].sort((a, b) => a.ordinal - b.ordinal)
  const selected = () => sorted[Math.min(at(), sorted.length - 1)]
  // While adding, the task form (drawn later) takes the keys.
  useDialogKeys(
    (input, key) => {
      if (key.escape || input === 'q' || input === 'T') return onClose()
      if (key.upArrow || input === 'k') return setAt(Math.max(0, at() - 1))
      if (key.downArrow || input === 'j') return setAt(Math.min(sorted.length - 1, at() + 1))
      if (input === 'n') return setAdding(true)
      const task = selected()
      if (task && input === 'e') onToggle(task)
      if (task && input === 'x') onTrigger(task)
    },
  )
  const task = selected()
  if (adding()) {
    return (
      <Form
        title="New task"
        fields={[
          { name: 'name', label: 'name', kind: 'text' },
          { name: 'project_path', label: 'project', kind: 'choice', choices: projects },
          { name: 'cron_expr', label: 'schedule', kind: 'text', placeholder: '0 9 * * 1-5' },
          { name: 'prompt', label: 'prompt', kind: 'text' },
        ]}
        initial={{ name: '', project_path: projects[0] ?? '', cron_expr: '', prompt: '' }}
        onSubmit={(values) => {
          setAdding(false)
          onAdd(values)
        }}
        onCancel={() => setAdding(false)}
      />
    )
  }
  const nameWidth = Math.max(10, Math.floor(width * 0.25))
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Text bold>{`Tasks (${sorted.length})`}</Text>
      {sorted.length === 0 ? <Text color="gray">No tasks. Press n to add one.</Text> : null}
      {sorted.slice(Math.max(0, at() - (height - 3)), Math.max(0, at() - (height - 3)) + height - 2).map((each) => (
        <Text key={each.id} inverse={each.id === task?.id} wrap="truncate-end">
          {`${(each.enabled ? '● ' : '○ ') + each.name.padEnd(nameWidth).slice(0, nameWidth)} ${projectName(each.project_path).padEnd(12).slice(0, 12)} ${(each.cron_expr || `watch: ${each.watch_cmd}`).padEnd(14).slice(0, 14)} ${nextRun(each, now).padEnd(14).slice(0, 14)} ${health(each)}`}
        </Text>
      ))}
      <Text color="gray">e enable/disable  x run now  n add  esc back</Text>
    </Box>
  )
}
