import type { Client, RequestOf } from '@svc/protocol'
import type { Project } from '../state/types.js'
import { Form } from './Form.js'
import { useLoaded } from './use-loaded.js'
import { Waiting } from './Waiting.js'

export interface NewSessionProps {
  client: Client
  projects: readonly Project[]
  /** The directory svc was started in: offered after the registered projects. */
  cwd: string
  onSubmit: (request: RequestOf<'CreateSession'>) => void
  onCancel: () => void
}

/** Projects to start in: the registered ones that still exist, and the current directory. */
export function projectChoices(projects: readonly Project[], cwd: string): string[] {
  const roots = projects.filter((project) => project.path_exists).map((project) => project.root)
  return roots.includes(cwd) ? roots : [...roots, cwd]
}

/**
 * `n`: a project, a title the daemon suggests, a program (the project's default, or one it
 * knows, installed ones first), an account, where it runs (the backends the daemon lists,
 * and an ssh host when it lists some), a first prompt. A backend the chosen project cannot
 * use is refused by the daemon, saying why.
 */
export function NewSession({ client, projects, cwd, onSubmit, onCancel }: NewSessionProps) {
  const choices = projectChoices(projects, cwd)
  const loaded = useLoaded(async () => {
    const [programs, suggestion, backends] = await Promise.all([
      client.call('ListPrograms', {}),
      client.call('SuggestSessionName', {}),
      client.call('ListBackends', { repo_path: choices[0] ?? cwd }),
    ])
    const names = [...programs.programs].sort((a, b) => Number(b.available) - Number(a.available)).map((program) => program.name)
    const hosts = backends.backends.flatMap((backend) => backend.hosts ?? [])
    return { programs: names, title: suggestion.name, backends: backends.backends.map((backend) => backend.name), hosts }
  })
  if (loaded === undefined || 'error' in loaded) return <Waiting error={loaded?.error} onCancel={onCancel} />
  return (
    <Form
      title="New session"
      fields={[
        { name: 'repo_path', label: 'project', kind: 'choice', choices },
        { name: 'title', label: 'title', kind: 'text' },
        // First, none: the daemon then takes the project's default_program (its .svc/config.json), else the global one.
        { name: 'program', label: 'program', kind: 'choice', choices: ['', ...loaded.value.programs], placeholder: "(the project's default)" },
        { name: 'account', label: 'account', kind: 'text', placeholder: '(the default)' },
        { name: 'backend', label: 'runs', kind: 'choice', choices: ['', ...loaded.value.backends], placeholder: "(the project's default)" },
        ...(loaded.value.hosts.length ? [{ name: 'host', label: 'host', kind: 'choice' as const, choices: ['', ...loaded.value.hosts], placeholder: "(the project's ssh.host)" }] : []),
        { name: 'prompt', label: 'prompt', kind: 'text', placeholder: '(none)' },
      ]}
      initial={{ repo_path: choices[0] ?? cwd, title: loaded.value.title, program: '', account: '', backend: '', host: '', prompt: '' }}
      onSubmit={(values) => onSubmit(Object.fromEntries(Object.entries(values).filter(([, value]) => value !== '')))}
      onCancel={onCancel}
    />
  )
}
