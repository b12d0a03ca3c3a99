import Type from 'typebox'
import { Closed, Empty, Ok, Request } from './common.js'

export const Project = Closed({ id: Type.String(), root: Type.String(), path_exists: Type.Boolean() })

export const DeleteProjectRequest = Request({ repo_path: Type.String(), repo_id: Type.String() })
export const DeleteProjectResponse = Ok

export const RegisterProjectRequest = Request({ path: Type.String() })
export const RegisterProjectResponse = Closed({ ok: Type.Literal(true), project: Project })

export const ListProjectsRequest = Empty
export const ListProjectsResponse = Closed({ projects: Type.Array(Project) })

export const ListDirectoryRequest = Request({ path: Type.String() })
export const ListDirectoryResponse = Closed({
  path: Type.String(),
  parent: Type.String(),
  home: Type.String(),
  is_repo: Type.Boolean(),
  entries: Type.Array(Closed({ name: Type.String(), path: Type.String(), is_repo: Type.Boolean() })),
  truncated: Type.Boolean(),
})
