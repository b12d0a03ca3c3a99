import { useEffect, useState } from 'react'
import { api, type Project } from '../api'
import { hrefOf } from '../route'
import { Outcome, useAction } from '../use-action'
import { DirectoryPicker } from '../components/DirectoryPicker'

export function NewSessionPage() {
  const [projects, setProjects] = useState<Project[]>([])
  const [programs, setPrograms] = useState<Array<{ name: string; available: boolean }>>([])
  const [accounts, setAccounts] = useState<Array<{ agent: string; name: string }>>([])
  const [form, setForm] = useState({ repo_path: '', title: '', program: '', account: '', prompt: '' })
  /** Whether the user picked the program: until then it follows the project's default. */
  const [programPicked, setProgramPicked] = useState(false)
  const { busy, outcome, run } = useAction()
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) => setForm((current) => ({ ...current, [field]: event.target.value }))

  useEffect(() => {
    void run(async () => {
      const [listed, name] = await Promise.all([api.call('ListProjects', {}), api.call('SuggestSessionName', {})])
      setProjects(listed.projects)
      // Suggestions fill only what the user has not typed yet: they may land after the typing.
      setForm((current) => ({
        ...current,
        repo_path: current.repo_path || (listed.projects[0]?.root ?? ''),
        title: current.title || name.name,
      }))
      setAccounts((await api.call('ListAccounts', {})).accounts)
    })
  }, [])

  // The programs and the default as the chosen project's .svc/config.json has them.
  useEffect(() => {
    void run(async () => {
      const offered = await api.call('ListPrograms', form.repo_path ? { repo_path: form.repo_path } : {})
      setPrograms(offered.programs)
      if (!programPicked) setForm((current) => ({ ...current, program: offered.default }))
    })
  }, [form.repo_path])

  return (
    <form
      className="new-session"
      onSubmit={(event) => {
        event.preventDefault()
        void run(async () => {
          const { account, ...rest } = form
          const created = await api.call('CreateSession', account ? form : rest)
          window.location.hash = hrefOf({ name: 'session', id: created.instance.id })
        })
      }}
    >
      <h1 className="visually-hidden">New session</h1>
      <label>
        Project
        <select value={form.repo_path} onChange={set('repo_path')}>
          {projects.map((project) => (
            <option key={project.id} value={project.root}>
              {project.root}
            </option>
          ))}
          {form.repo_path && !projects.some((project) => project.root === form.repo_path) ? <option value={form.repo_path}>{form.repo_path}</option> : null}
        </select>
      </label>
      <DirectoryPicker onPick={(path) => setForm({ ...form, repo_path: path })} />
      <label>
        Title
        <input value={form.title} onChange={set('title')} required />
      </label>
      <label>
        Program
        <select
          value={form.program}
          onChange={(event) => {
            setProgramPicked(true)
            set('program')(event)
          }}
        >
          {programs.map((program) => (
            <option key={program.name} value={program.name} disabled={!program.available}>
              {program.name}
              {program.available ? '' : ' (not installed)'}
            </option>
          ))}
        </select>
      </label>
      <label>
        Account
        <select value={form.account} onChange={set('account')}>
          <option value="">(the agent's own login)</option>
          {accounts
            .filter((account) => account.agent === form.program)
            .map((account) => (
              <option key={account.name} value={account.name}>
                {account.name}
              </option>
            ))}
        </select>
      </label>
      <label>
        First prompt
        <textarea value={form.prompt} onChange={set('prompt')} rows={3} />
      </label>
      <button type="submit" disabled={busy || !form.repo_path || !form.title}>
        Create session
      </button>
      <Outcome outcome={outcome} />
    </form>
  )
}
