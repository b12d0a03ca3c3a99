import Type from 'typebox'
import { Closed, Empty, Ok, Request } from './common.js'

export const Project = Closed({
  id: Type.String(),
  root: Type.String(),
  path_exists: Type.Boolean(),
  /**
   * False when the repository's .svc/config.json names commands (program_overrides,
   * remote_hooks.*, a command-line default_program) and that exact content is not
   * trusted (svc projects trust), or cannot be read; true otherwise.
   */
  config_trusted: Type.Boolean(),
})

export const DeleteProjectRequest = Request({ repo_path: Type.String(), repo_id: Type.String() })
export const DeleteProjectResponse = Ok

export const RegisterProjectRequest = Request({ path: Type.String() })
export const RegisterProjectResponse = Closed({ ok: Type.Literal(true), project: Project })

/** Trust the repository's .svc/config.json as it is now: its sha256 is recorded. */
export const TrustProjectRequest = Request({ path: Type.String() })
export const TrustProjectResponse = Closed({ ok: Type.Literal(true), sha256: Type.String() })

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
