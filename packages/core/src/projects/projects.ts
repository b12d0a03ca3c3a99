import { existsSync } from 'node:fs'
import { rename } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Static } from 'typebox'
import { expandHome, type Project, type ServicePaths, excerpt } from '@svc/protocol'
import type { Config } from '../config/config.js'
import type { ConfigResolver } from '../config/resolver.js'
import type { EventBus } from '../events/bus.js'
import { InvalidRequest, NotFound, Refused } from '../errors.js'
import { readIfExists, writeFileDurable } from '../infra/durable.js'
import { repoIdOf, resolveRepository, type Repository } from '../infra/git.js'
import { SerialQueue } from '../serial.js'
import type { Sessions } from '../sessions/sessions.js'
import { stateOf } from '../sessions/record.js'

type ProjectWire = Static<typeof Project>

/**
 * The durable registry of projects (git checkouts) in projects.json. Registering is
 * idempotent; deleting a project archives its sessions but never touches the repository.
 */
export class Projects {
  private readonly projects = new Map<string, Repository>()
  private readonly writes = new SerialQueue()

  constructor(
    private readonly paths: ServicePaths,
    private readonly config: Config,
    private readonly resolver: ConfigResolver,
    private readonly sessions: Sessions,
    private readonly events: EventBus,
  ) {}

  async restore(): Promise<void> {
    const text = await readIfExists(this.paths.projects)
    if (text === undefined) return
    try {
      const stored = JSON.parse(text) as { projects: Repository[] }
      for (const project of stored.projects) this.projects.set(project.id, project)
    } catch (error) {
      const aside = `${this.paths.projects}.corrupt-${Date.now()}`
      await rename(this.paths.projects, aside)
      throw new Error(`${this.paths.projects} is not valid (${(error as Error).message}); it was moved to ${aside}`, { cause: error })
    }
  }

  private async wire(project: Repository): Promise<ProjectWire> {
    return {
      id: project.id,
      root: project.root,
      path_exists: existsSync(project.root),
      config_trusted: await this.resolver.trusted(project.root),
    }
  }

  private async save(): Promise<void> {
    const projects = [...this.projects.values()].sort((a, b) => a.root.localeCompare(b.root))
    await writeFileDurable(this.paths.projects, `${JSON.stringify({ projects }, null, 2)}\n`)
    this.events.publish('projects.changed', undefined)
  }

  /** Records a repository sessions use, so it appears among the projects. */
  remember(repo: Repository): Promise<void> {
    return this.writes.run(async () => {
      if (this.projects.has(repo.id)) return
      this.projects.set(repo.id, repo)
      await this.save()
    })
  }

  async register(path: string): Promise<ProjectWire> {
    const repo = await resolveRepository(expandHome(path))
    await this.remember(repo)
    return this.wire(repo)
  }

  /** The root of a registered project, by repo id. */
  rootOf(id: string): string | undefined {
    return this.projects.get(id)?.root
  }

  list(): Promise<ProjectWire[]> {
    const sorted = [...this.projects.values()].sort((a, b) => a.root.localeCompare(b.root))
    return Promise.all(sorted.map((project) => this.wire(project)))
  }

  /** The project a request names, even when its checkout is gone from disk. */
  private async identify(request: { repo_path?: string; repo_id?: string }): Promise<string> {
    if (request.repo_id) return request.repo_id
    if (!request.repo_path) throw new InvalidRequest('repo_path or repo_id is required')
    const path = resolve(expandHome(request.repo_path))
    const registered = [...this.projects.values()].find((project) => project.root === path)
    if (registered) return registered.id
    return existsSync(path) ? (await resolveRepository(path)).id : repoIdOf(path)
  }

  /**
   * Archives the project's live sessions (restorable), tears down in-place ones, drops
   * its root-agents opt-in and forgets it. Refused before any change when an enabled
   * task targets one of its sessions.
   */
  async delete(request: { repo_path?: string; repo_id?: string }): Promise<void> {
    const id = await this.identify(request)
    const project = this.projects.get(id)
    const sessions = this.sessions.ofRepository(id)
    if (!project && sessions.length === 0) throw new NotFound(`no project ${excerpt(request.repo_path ?? id)}`)
    const blocked = sessions.filter((session) => this.sessions.targetedBy(session).length > 0)
    if (blocked.length > 0) {
      throw new Refused(
        `enabled tasks target ${blocked.map((session) => `"${session.title}"`).join(', ')}; disable them before deleting the project`,
      )
    }
    for (const session of sessions) {
      const ref = { id: session.id }
      if (session.in_place) await this.sessions.runtimeOf(ref).kill(ref)
      else if (stateOf(session) !== 'archived') await this.sessions.runtimeOf(ref).archive(ref)
    }
    const root = project?.root ?? sessions[0]?.repo_path
    await this.config.update('root_agents', (optedIn) => optedIn.filter((entry) => entry !== root && entry !== id))
    await this.writes.run(async () => {
      if (this.projects.delete(id)) await this.save()
    })
  }
}
