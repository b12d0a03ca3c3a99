import { removeTaskWords } from '@svc/protocol/browser'
import { useState } from 'react'
import { api, type Task } from '../api'
import { ConfirmButton } from '../components/Confirm'
import { NewTaskForm } from '../components/NewTaskForm'
import { useFleet } from '../use-fleet'
import { Outcome, useAction } from '../use-action'

function health(task: Task): string {
  if (task.unschedulable) return `unschedulable: ${task.unschedulable_reason ?? ''}`
  if (task.overdue) return `overdue (${task.missed_occurrences} missed)`
  return task.arming
}

export function TasksPage() {
  const { fleet } = useFleet()
  const [adding, setAdding] = useState(false)
  const tasks = [...fleet.tasks.values()].sort((a, b) => a.ordinal - b.ordinal)
  return (
    <section className="tasks">
      <h1 className="visually-hidden">Tasks</h1>
      <button type="button" onClick={() => setAdding(!adding)}>
        {adding ? 'Close' : 'New task'}
      </button>
      {adding ? <NewTaskForm done={() => setAdding(false)} /> : null}
      {tasks.length === 0 ? <p className="empty">No tasks.</p> : null}
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>When</th>
            <th>Next run</th>
            <th>Health</th>
            <th>Last run</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <TaskRow key={task.id} task={task} />
          ))}
        </tbody>
      </table>
    </section>
  )
}

function TaskRow({ task }: { task: Task }) {
  const { busy, outcome, run } = useAction()
  return (
    <tr data-task={task.name}>
      <td>{task.name}</td>
      <td>
        <code>{task.cron_expr || `watch: ${task.watch_cmd}`}</code>
      </td>
      <td>{task.next_run_at ? new Date(task.next_run_at).toLocaleString() : '—'}</td>
      <td>{health(task)}</td>
      <td>{task.last_run_at ? `${new Date(task.last_run_at).toLocaleString()} ${task.last_run_status ?? ''}` : '—'}</td>
      <td>
        <button type="button" disabled={busy} onClick={() => void run(async () => void (await api.call('UpdateTask', { id: task.id, update: { enabled: !task.enabled } })))}>
          {task.enabled ? 'Disable' : 'Enable'}
        </button>
        {task.cron_expr ? (
          <button type="button" disabled={busy || !task.enabled} onClick={() => void run(async () => (await api.call('TriggerTask', { id: task.id }), 'triggered'))}>
            Trigger
          </button>
        ) : null}
        <ConfirmButton
          label="Remove"
          question={`Remove the task ${task.name}?`}
          details={removeTaskWords(task)}
          onConfirm={() => void run(async () => void (await api.call('RemoveTask', { id: task.id })))}
        />
        <Outcome outcome={outcome} />
      </td>
    </tr>
  )
}
