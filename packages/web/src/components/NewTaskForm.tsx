import { useEffect, useState } from 'react'
import { api, type Project } from '../api'
import { schedulePreview } from '../schedule-words'
import { useFleet } from '../use-fleet'
import { Outcome, useAction } from '../use-action'
import { ui } from './ui'

export function NewTaskForm({ done }: { done: () => void }) {
  const { fleet } = useFleet()
  const [kind, setKind] = useState<'cron' | 'watch'>('cron')
  const [projects, setProjects] = useState<Project[]>([])
  const [form, setForm] = useState({ name: '', cron_expr: '', watch_cmd: '', prompt: '', target_session: '', project_path: '' })
  const { busy, outcome, run } = useAction()
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) => setForm({ ...form, [field]: event.target.value })
  useEffect(() => {
    void run(async () => {
      const listed = await api.call('ListProjects', {})
      setProjects(listed.projects)
      setForm((current) => ({ ...current, project_path: listed.projects[0]?.root ?? '' }))
    })
  }, [])
  const sessions = [...fleet.sessions.values()].filter((session) => session.repo_path === form.project_path)
  return (
    <form
      className="new-task my-3 flex max-w-xl flex-col gap-3 rounded-lg border border-line bg-surface p-4"
      onSubmit={(event) => {
        event.preventDefault()
        void run(async () => {
          const schedule = kind === 'cron' ? { cron_expr: form.cron_expr } : { watch_cmd: form.watch_cmd }
          await api.call('AddTask', {
            task: { name: form.name, prompt: form.prompt, target_session: form.target_session, project_path: form.project_path, enabled: true, ...schedule },
          })
          done()
        })
      }}
    >
      <label className={ui.label}>
        Name
        <input className={ui.blockField} value={form.name} onChange={set('name')} required />
      </label>
      <div role="radiogroup" aria-label="runs" className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <label className="inline-flex items-center gap-2">
          <input type="radio" name="kind" className="accent-accent" checked={kind === 'cron'} onChange={() => setKind('cron')} /> on a schedule
        </label>
        <label className="inline-flex items-center gap-2">
          <input type="radio" name="kind" className="accent-accent" checked={kind === 'watch'} onChange={() => setKind('watch')} /> when a command prints a line
        </label>
      </div>
      {kind === 'cron' ? (
        <label className={ui.label}>
          Cron expression
          <input className={ui.blockField} value={form.cron_expr} onChange={set('cron_expr')} placeholder="0 9 * * 1-5" required />
          <small className={ui.hint} data-testid="schedule-preview">{schedulePreview(form.cron_expr)}</small>
        </label>
      ) : (
        <label className={ui.label}>
          Watch command
          <input className={ui.blockField} value={form.watch_cmd} onChange={set('watch_cmd')} placeholder="tail -F build.log | grep --line-buffered FAILED" required />
        </label>
      )}
      <label className={ui.label}>
        Project
        <select className={ui.blockField} value={form.project_path} onChange={set('project_path')} required>
          {projects.map((project) => (
            <option key={project.id} value={project.root}>
              {project.root}
            </option>
          ))}
        </select>
      </label>
      <label className={ui.label}>
        Session
        <select className={ui.blockField} value={form.target_session} onChange={set('target_session')}>
          <option value="">(a new session per run)</option>
          {sessions.map((session) => (
            <option key={session.id} value={session.title}>
              {session.title}
            </option>
          ))}
        </select>
      </label>
      <label className={ui.label}>
        Prompt
        <textarea className={ui.blockField} value={form.prompt} onChange={set('prompt')} rows={2} required />
      </label>
      <button type="submit" className={`${ui.primary} self-start`} disabled={busy}>
        Add task
      </button>
      <Outcome outcome={outcome} />
    </form>
  )
}
