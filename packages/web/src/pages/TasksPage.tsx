import { removeTaskWords } from '@svc/protocol/browser'
import { Plus, X } from 'lucide-react'
import { useState } from 'react'
import { api, type Task } from '../api'
import { ConfirmButton } from '../components/Confirm'
import { NewTaskForm } from '../components/NewTaskForm'
import { ui } from '../components/ui'
import { useFleet } from '../use-fleet'
import { Outcome, useAction } from '../use-action'

/** A task's health in words, in the tone that says whether it needs the user. */
function health(task: Task): { words: string; tone: string } {
  if (task.unschedulable) return { words: `unschedulable: ${task.unschedulable_reason ?? ''}`, tone: 'text-tone-lost' }
  if (task.overdue) return { words: `overdue (${task.missed_occurrences} missed)`, tone: 'text-tone-attention' }
  return { words: task.arming, tone: 'text-muted' }
}

const CELL = 'px-3 py-2 align-top max-md:block max-md:px-0 max-md:py-0.5'
/** On a phone the headings are hidden and each cell stacks: it names itself (its `data-label`), drawn with an empty alternative text so a screen reader, which has the headings, does not hear it twice. */
const LABELLED = `${CELL} max-md:before:mr-2 max-md:before:text-muted max-md:before:content-[attr(data-label)_/_'']`

export function TasksPage() {
  const { fleet } = useFleet()
  const [adding, setAdding] = useState(false)
  const tasks = [...fleet.tasks.values()].sort((a, b) => a.ordinal - b.ordinal)
  return (
    <section className={ui.page}>
      <div className="flex items-center justify-between gap-2">
        <h1 className={ui.heading}>Tasks</h1>
        <button type="button" className={adding ? ui.button : ui.primary} onClick={() => setAdding(!adding)}>
          {adding ? <X aria-hidden className="size-4" /> : <Plus aria-hidden className="size-4" />}
          {adding ? 'Close' : 'New task'}
        </button>
      </div>
      {adding ? <NewTaskForm done={() => setAdding(false)} /> : null}
      {tasks.length === 0 ? (
        <p className={ui.empty}>No tasks yet: “New task” runs a prompt on a schedule, or whenever a command prints a line.</p>
      ) : (
        <div className={`${ui.card} overflow-x-auto`}>
          <table className="w-full text-left text-sm max-md:block">
            <thead className="border-b border-line text-muted max-md:sr-only">
              <tr>
                <th className="px-3 py-2 font-medium">Name</th>
                <th className="px-3 py-2 font-medium">When</th>
                <th className="px-3 py-2 font-medium">Next run</th>
                <th className="px-3 py-2 font-medium">Health</th>
                <th className="px-3 py-2 font-medium">Last run</th>
                <th className="px-3 py-2 font-medium">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-line max-md:block">
              {tasks.map((task) => (
                <TaskRow key={task.id} task={task} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

function TaskRow({ task }: { task: Task }) {
  const { busy, outcome, run } = useAction()
  const { words, tone } = health(task)
  return (
    <tr data-task={task.name} className="max-md:block max-md:p-3">
      <td className={`${CELL} font-medium`}>{task.name}</td>
      <td className={LABELLED} data-label="When">
        <code className="rounded bg-raised px-1 font-mono text-xs">{task.cron_expr || `watch: ${task.watch_cmd}`}</code>
      </td>
      <td className={LABELLED} data-label="Next run">{task.next_run_at ? new Date(task.next_run_at).toLocaleString() : '—'}</td>
      <td className={`${LABELLED} ${tone}`} data-label="Health">{words}</td>
      <td className={LABELLED} data-label="Last run">{task.last_run_at ? `${new Date(task.last_run_at).toLocaleString()} ${task.last_run_status ?? ''}` : '—'}</td>
      <td className={CELL}>
        <div className="flex flex-wrap items-center gap-2">
          <button
            type="button"
            className={ui.button}
            disabled={busy}
            onClick={() => void run(async () => (await api.call('UpdateTask', { id: task.id, update: { enabled: !task.enabled } }), `${task.name} ${task.enabled ? 'disabled' : 'enabled'}`))}
          >
            {task.enabled ? 'Disable' : 'Enable'}
          </button>
          {task.cron_expr ? (
            <button type="button" className={ui.button} disabled={busy || !task.enabled} onClick={() => void run(async () => (await api.call('TriggerTask', { id: task.id }), 'triggered'))}>
              Trigger
            </button>
          ) : null}
          <ConfirmButton
            label="Remove"
            question={`Remove the task ${task.name}?`}
            details={removeTaskWords(task)}
            onConfirm={() => void run(async () => (await api.call('RemoveTask', { id: task.id }), `removed the task ${task.name}`))}
          />
        </div>
        <Outcome outcome={outcome} />
      </td>
    </tr>
  )
}
