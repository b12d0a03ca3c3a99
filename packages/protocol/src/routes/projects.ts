import * as p from '../schemas/projects.js'
import { rpc } from './define.js'

export const projectRoutes = [
  rpc('RegisterProject', 'projects', 'Register a git checkout as a durable project (idempotent)', p.RegisterProjectRequest, p.RegisterProjectResponse, { required: ['path'] }),
  rpc('ListProjects', 'projects', 'Every registered project, with whether its checkout still exists and whether its repository config is trusted', p.ListProjectsRequest, p.ListProjectsResponse),
  rpc('TrustProject', 'projects', "Trust the repository's .svc/config.json as it is now, so sessions may run the commands it names", p.TrustProjectRequest, p.TrustProjectResponse, { required: ['path'] }),
  rpc('DeleteProject', 'projects', 'Archive the project\'s sessions and forget it; the repository is untouched', p.DeleteProjectRequest, p.DeleteProjectResponse),
  rpc('ListDirectory', 'projects', 'Child directories of a directory on the daemon host, git checkouts marked', p.ListDirectoryRequest, p.ListDirectoryResponse),
] as const
