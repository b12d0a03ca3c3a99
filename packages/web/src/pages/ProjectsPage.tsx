import { deleteProjectWords } from '@svc/protocol/browser'
import { useEffect, useState } from 'react'
import { api, type Project } from '../api'
import { ConfirmButton } from '../components/Confirm'
import { DirectoryPicker } from '../components/DirectoryPicker'
import { Outcome, useAction } from '../use-action'
import { useFleet } from '../use-fleet'

export function ProjectsPage() {
  const [projects, setProjects] = useState<Project[]>([])
  const { fleet } = useFleet()
  const { outcome, run } = useAction()
  const reload = () => run(async () => setProjects((await api.call('ListProjects', {})).projects))
  useEffect(() => void reload(), [])
  return (
    <section className="projects">
      <h1 className="visually-hidden">Projects</h1>
      <ul>
        {projects.map((project) => (
          <li key={project.id}>
            <code>{project.root}</code> {project.path_exists ? '' : <span className="error">(missing)</span>}{' '}
            <ConfirmButton
              label="Forget"
              question={`Forget the project ${project.root}?`}
              details={deleteProjectWords(project.root, [...fleet.sessions.values()].filter((session) => session.repo_id === project.id))}
              onConfirm={() => void run(async () => (await api.call('DeleteProject', { repo_id: project.id }), await reload()))}
            />
          </li>
        ))}
      </ul>
      <DirectoryPicker onPick={(path) => void run(async () => (await api.call('RegisterProject', { path }), await reload()))} />
      <Outcome outcome={outcome} />
    </section>
  )
}
