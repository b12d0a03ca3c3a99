import type { Logger } from 'pino'
import type { Config } from '../config/config.js'
import type { ConfigResolver } from '../config/resolver.js'
import { resolveRepository } from '../infra/git.js'
import type { Lifecycle } from './lifecycle.js'
import type { SessionRecord } from './record.js'
import type { SessionTable } from './table.js'
import { ROOT_TITLE } from './titles.js'

/** Sets or clears the recreate notice of a root session; true when that changed anything. */
function noteProgram(record: SessionRecord, wanted: string): boolean {
  const before = JSON.stringify([record.root, record.recreate])
  record.root = true
  if (record.program === wanted) delete record.recreate
  else {
    record.recreate = {
      program: wanted,
      notice: `root_agent is ${wanted}, and this root session runs ${record.program}; recreate it with RestoreSession force_reap (svc sessions restore ${ROOT_TITLE} --force-reap)`,
    }
  }
  return JSON.stringify([record.root, record.recreate]) !== before
}

/**
 * Root agents: at daemon start each project in root_agents gets an in-place session
 * titled `root` running root_agent; one that runs another agent gets a recreate notice.
 */
export class RootSessions {
  constructor(
    private readonly table: SessionTable,
    private readonly lifecycle: Lifecycle,
    private readonly config: Config,
    private readonly resolver: ConfigResolver,
    private readonly log: Logger,
  ) {}

  /** `rootOf` finds a registered project's root by its repo id. */
  async start(rootOf: (id: string) => string | undefined): Promise<void> {
    for (const entry of this.config.get('root_agents')) {
      try {
        const path = entry.startsWith('/') ? entry : rootOf(entry)
        if (path === undefined) throw new Error(`no registered project has the repo id ${entry}`)
        await this.ensure(path)
      } catch (error) {
        this.log.warn({ err: error, project: entry }, 'could not start the root session of a project in root_agents')
      }
    }
  }

  private async ensure(path: string): Promise<void> {
    const repo = await resolveRepository(path)
    const program = this.config.get('root_agent') || (await this.resolver.forRoot(repo.root)).settings.default_program
    const existing = this.table.inRepo(repo.id, ROOT_TITLE)
    if (!existing) {
      await this.lifecycle.create({ repo_path: repo.root, title: ROOT_TITLE, in_place: true, program }, { root: true })
      return
    }
    await this.table.operate({ id: existing.id }, async (record) => {
      if (!noteProgram(record, program)) return
      this.table.touch(record)
      await this.table.save(record)
    })
  }
}
