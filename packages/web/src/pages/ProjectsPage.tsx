import { deleteProjectWords } from '@svc/protocol/browser'
import { useEffect, useState } from 'react'
import { api, type Project } from '../api'
import { ConfirmButton } from '../components/Confirm'
import { DirectoryPicker } from '../components/DirectoryPicker'
import { ui } from '../components/ui'
import { Outcome, useAction } from '../use-action'
import { useFleet } from '../use-fleet'

export function ProjectsPage() {
  const [projects, setProjects] = useState<Project[] | undefined>()
  const { fleet } = useFleet()
  const { outcome, run } = useAction()
  const reload = async () => setProjects((await api.call('ListProjects', {})).projects)
  useEffect(() => void run(reload), [])
  return (
    <section className={ui.page}>
      <h1 className={ui.heading}>Projects</h1>
      {projects?.length === 0 ? <p className={ui.empty}>No projects yet: browse for a git repository below to add one.</p> : null}
      {projects?.length ? (
        <ul className={`${ui.card} divide-y divide-line`}>
          {projects.map((project) => (
            <li key={project.id} className="flex flex-wrap items-center gap-2 px-3 py-2" data-project={project.root}>
              <code className="min-w-0 flex-1 font-mono text-sm break-all">{project.root}</code>
              {project.path_exists ? null : <span className="text-sm text-danger">(missing)</span>}
              <ConfirmButton
                label="Forget"
                question={`Forget the project ${project.root}?`}
                details={deleteProjectWords(project.root, [...fleet.sessions.values()].filter((session) => session.repo_id === project.id))}
                onConfirm={() => void run(async () => (await api.call('DeleteProject', { repo_id: project.id }), await reload(), `forgot ${project.root}`))}
              />
            </li>
          ))}
        </ul>
      ) : null}
      <DirectoryPicker onPick={(path) => void run(async () => (await api.call('RegisterProject', { path }), await reload(), `added ${path}`))} />
      <Outcome outcome={outcome} />
    </section>
  )
}
