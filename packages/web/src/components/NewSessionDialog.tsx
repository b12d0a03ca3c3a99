import { useEffect, useId, useState } from 'react'
import { Dialog } from 'radix-ui'
import type { ResponseOf } from '@svc/protocol/browser'
import { api, type Project } from '../api'
import { closeNewSession, openNewSession, useNewSessionOpen } from '../new-session'
import { hrefOf } from '../route'
import { Outcome, useAction } from '../use-action'
import { DirectoryPicker } from './DirectoryPicker'
import { ui } from './ui'

type Backends = Pick<ResponseOf<'ListBackends'>, 'backends' | 'default'>

/** The new-session dialog, rendered once at the root; `openNewSession()` shows it. */
export function NewSessionDialog() {
  const open = useNewSessionOpen()
  return (
    <Dialog.Root open={open} onOpenChange={(next) => (next ? openNewSession() : closeNewSession())}>
      <Dialog.Portal>
        <Dialog.Overlay className={ui.overlay} />
        <Dialog.Content className={ui.panel}>
          <Dialog.Title className="text-lg font-semibold">New session</Dialog.Title>
          <Dialog.Description className="mt-1 text-sm text-muted">An agent in its own worktree and branch of the project.</Dialog.Description>
          {/* Inside the content: each opening starts a fresh form and fetches a fresh suggestion. */}
          <NewSessionForm />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}

function NewSessionForm() {
  const [projects, setProjects] = useState<Project[]>([])
  const [programs, setPrograms] = useState<Array<{ name: string; available: boolean }>>([])
  const [accounts, setAccounts] = useState<Array<{ agent: string; name: string }>>([])
  const [backends, setBackends] = useState<Backends>({ backends: [], default: '' })
  const [form, setForm] = useState({ repo_path: '', title: '', program: '', account: '', prompt: '', backend: '', host: '' })
  /**
   * The daemon's suggested title is only the field's placeholder, never its value: it may
   * land after the user typed or cleared the field, and must not change what they wrote.
   */
  const [suggested, setSuggested] = useState('')
  /** The project's default program: what the form offers until the user picks one (form.program). */
  const [defaultProgram, setDefaultProgram] = useState('')
  const { busy, outcome, run } = useAction()
  const titleHint = useId()
  const program = form.program || defaultProgram
  const backend = form.backend || backends.default
  const hosts = backends.backends.find((entry) => entry.name === backend)?.hosts
  const set = (name: keyof typeof form) => (event: { target: { value: string } }) => setForm((current) => ({ ...current, [name]: event.target.value }))

  useEffect(() => {
    void run(async () => {
      const listed = await api.call('ListProjects', {})
      setProjects(listed.projects)
      setForm((current) => ({ ...current, repo_path: current.repo_path || (listed.projects[0]?.root ?? '') }))
      setAccounts((await api.call('ListAccounts', {})).accounts)
    })
    // Without a suggestion the field stays empty and the daemon names the session.
    void api.call('SuggestSessionName', {}).then((name) => setSuggested(name.name), () => undefined)
  }, [])

  // The programs, backends and defaults as the chosen project's .svc/config.json has them;
  // an answer for a project no longer chosen is dropped.
  useEffect(() => {
    let chosen = true
    void run(async () => {
      const project = form.repo_path ? { repo_path: form.repo_path } : {}
      const [offered, runs] = await Promise.all([api.call('ListPrograms', project), form.repo_path ? api.call('ListBackends', { repo_path: form.repo_path }) : undefined])
      if (!chosen) return
      setPrograms(offered.programs)
      setDefaultProgram(offered.default)
      setBackends(runs ?? { backends: [], default: '' })
      setForm((current) => ({ ...current, backend: '', host: '' }))
    })
    return () => void (chosen = false)
  }, [form.repo_path])

  return (
    <form
      className="mt-4 flex flex-col gap-3"
      onSubmit={(event) => {
        event.preventDefault()
        void run(async () => {
          const { account, title, backend: _backend, host, ...rest } = form
          // An empty title takes the suggestion shown; none yet, and the daemon picks one.
          const chosen = title.trim() || suggested
          const where = { ...(backend ? { backend } : {}), ...(hosts && (host || hosts[0]) ? { host: host || hosts[0] } : {}) }
          const created = await api.call('CreateSession', { ...rest, ...where, program, ...(chosen ? { title: chosen } : {}), ...(account ? { account } : {}) })
          window.location.hash = hrefOf({ name: 'session', id: created.instance.id })
          closeNewSession()
          return `created ${created.instance.title}`
        })
      }}
    >
      <label className={ui.label}>
        Project
        <select className={ui.blockField} value={form.repo_path} onChange={set('repo_path')}>
          {projects.map((project) => (
            <option key={project.id} value={project.root}>
              {project.root}
            </option>
          ))}
          {form.repo_path && !projects.some((project) => project.root === form.repo_path) ? <option value={form.repo_path}>{form.repo_path}</option> : null}
        </select>
      </label>
      <DirectoryPicker onPick={(path) => setForm((current) => ({ ...current, repo_path: path }))} />
      <div>
        <label className={ui.label}>
          Title
          <input className={ui.blockField} value={form.title} onChange={set('title')} placeholder={suggested} aria-describedby={titleHint} autoComplete="off" />
        </label>
        <p id={titleHint} className={ui.hint}>
          {suggested ? `Left empty, the session is named ${suggested}.` : 'Left empty, the daemon names the session.'}
        </p>
      </div>
      <label className={ui.label}>
        Program
        <select
          className={ui.blockField}
          value={program}
          onChange={set('program')}
        >
          {programs.map((program) => (
            <option key={program.name} value={program.name} disabled={!program.available}>
              {program.name}
              {program.available ? '' : ' (not installed)'}
            </option>
          ))}
        </select>
      </label>
      <label className={ui.label}>
        Account
        <select className={ui.blockField} value={form.account} onChange={set('account')}>
          <option value="">(the agent's own login)</option>
          {accounts
            .filter((account) => account.agent === program)
            .map((account) => (
              <option key={account.name} value={account.name}>
                {account.name}
              </option>
            ))}
        </select>
      </label>
      {backends.backends.length > 1 ? (
        <label className={ui.label}>
          Runs
          <select className={ui.blockField} value={backend} onChange={set('backend')}>
            {backends.backends.map((entry) => (
              <option key={entry.name} value={entry.name} disabled={entry.status !== 'available'} title={entry.reason}>
                {entry.label}
                {entry.status === 'available' ? '' : ` (unavailable: ${entry.reason ?? 'not set up'})`}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {hosts?.length ? (
        <label className={ui.label}>
          Host
          <select className={ui.blockField} value={form.host || hosts[0]} onChange={set('host')}>
            {hosts.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label className={ui.label}>
        First prompt
        <textarea className={ui.blockField} value={form.prompt} onChange={set('prompt')} rows={3} />
      </label>
      <Outcome outcome={outcome} />
      <div className="flex flex-wrap justify-end gap-2">
        <Dialog.Close className={ui.button} type="button">
          Cancel
        </Dialog.Close>
        <button type="submit" className={ui.primary} disabled={busy || !form.repo_path}>
          Create session
        </button>
      </div>
    </form>
  )
}
