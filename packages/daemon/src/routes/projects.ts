import { listDirectory, type Projects } from '@svc/core'
import type { GroupHandlers } from './group.js'

export function projectRoutes(projects: Projects): GroupHandlers<'projects'> {
  return {
    RegisterProject: async ({ path }) => ({ ok: true, project: await projects.register(path) }),
    ListProjects: () => ({ projects: projects.list() }),
    DeleteProject: async (body) => {
      await projects.delete(body)
      return { ok: true }
    },
    ListDirectory: ({ path }) => listDirectory(path),
  }
}
