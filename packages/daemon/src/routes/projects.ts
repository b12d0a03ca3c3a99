import { listDirectory, type ConfigResolver, type Projects } from '@svc/core'
import type { GroupHandlers } from './group.js'

export function projectRoutes(projects: Projects, resolver: ConfigResolver): GroupHandlers<'projects'> {
  return {
    RegisterProject: async ({ path }) => ({ ok: true, project: await projects.register(path) }),
    ListProjects: async () => ({ projects: await projects.list() }),
    TrustProject: ({ path }) => resolver.trustRepository(path),
    DeleteProject: async (body) => {
      await projects.delete(body)
      return { ok: true }
    },
    ListDirectory: ({ path }) => listDirectory(path),
  }
}
