import type { Command } from 'commander'
import { hostPath, oneOf } from '../args.js'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { printTable } from '../output.js'
import { reply } from '../reply.js'

export function projectsCommand(program: Command): void {
  const projects = program.command('projects').description('registered projects: git checkouts the daemon knows, with or without sessions')

  projects
    .command('add <path>')
    .description('register a git checkout as a project (its git root; idempotent)')
    .action(async (path: string, _options, command: Command) => {
      const response = await callDaemon(resolvePaths(), 'RegisterProject', { path: hostPath(path) })
      reply(command, response, `project ${response.project.id} at ${response.project.root}`)
    })

  projects
    .command('list')
    .description('every registered project, and whether its checkout still exists')
    .action(async (_options, command: Command) => {
      const response = await callDaemon(resolvePaths(), 'ListProjects')
      reply(command, response, () =>
        response.projects.length === 0
          ? void process.stdout.write('no projects\n')
          : printTable(
              ['ID', 'ROOT', 'EXISTS', 'CONFIG'],
              response.projects.map((project) => [
                project.id,
                project.root,
                project.path_exists ? 'yes' : 'no (moved or deleted)',
                project.config_trusted ? 'ok' : `not trusted (svc projects trust ${project.root})`,
              ]),
            ),
      )
    })

  projects
    .command('trust <path>')
    .description(
      "trust the repository's .svc/config.json as it is now, so its sessions may run the commands it names (program_overrides, remote_hooks, a command-line default_program); any later change to it, or to a script of the repository its remote_hooks run, needs trusting again",
    )
    .action(async (path: string, _options, command: Command) => {
      const response = await callDaemon(resolvePaths(), 'TrustProject', { path: hostPath(path) })
      reply(command, response, `trusted the repository config of ${path} (sha256 ${response.sha256})`)
    })

  projects
    .command('remove [path]')
    .description("forget a project: its live sessions are archived (restorable), in-place ones torn down; the repository is untouched")
    .option('--repo-id <id>', 'the project by id (works when its checkout is gone)')
    .action(async (path: string | undefined, options: { repoId?: string }, command: Command) => {
      oneOf({ '<path>': path, '--repo-id': options.repoId }, true)
      const response = await callDaemon(
        resolvePaths(),
        'DeleteProject',
        path ? { repo_path: hostPath(path) } : { repo_id: options.repoId },
      )
      reply(command, response, `removed project ${path ?? options.repoId}`)
    })

  projects
    .command('browse [path]')
    .description("list the child directories of a directory on the daemon's host, git checkouts marked (default: home)")
    .action(async (path: string | undefined, _options, command: Command) => {
      const listing = await callDaemon(resolvePaths(), 'ListDirectory', path ? { path: hostPath(path) } : {})
      reply(command, listing, () => {
        process.stdout.write(`${listing.path}${listing.is_repo ? '  (git checkout)' : ''}\n\n`)
        if (listing.entries.length === 0) return void process.stdout.write('no subdirectories\n')
        printTable(
          ['NAME', 'GIT', 'PATH'],
          listing.entries.map((entry) => [`${entry.name}/`, entry.is_repo ? 'git' : '', entry.path]),
        )
        if (listing.truncated) process.stdout.write(`(only the first ${listing.entries.length} shown)\n`)
      })
    })
}
