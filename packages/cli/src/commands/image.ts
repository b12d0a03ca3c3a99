import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Command } from 'commander'
import { callerDirectory } from '../args.js'
import { UsageError } from '../exit.js'
import { defaultTag, devcontainerBase, imageDockerfile, NODE_IN_CONTEXT, type ImageBase } from '../image-recipe.js'
import { reply } from '../reply.js'

/** `docker <args>` with its output on stderr (a build's progress); resolves with its exit code. */
function docker(args: string[]): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn('docker', args, { stdio: ['ignore', process.stderr, process.stderr] })
    child.on('error', (error: NodeJS.ErrnoException) => fail(error.code === 'ENOENT' ? new Error('the docker command is not installed on this machine') : error))
    child.on('exit', (code) => done(code ?? 1))
  })
}

/** Whether the engine has `image`; never pulled (an image svc builds starts from one you have). */
async function present(image: string): Promise<boolean> {
  return new Promise((done) => {
    const child = spawn('docker', ['image', 'inspect', image], { stdio: 'ignore' })
    child.on('error', () => done(false))
    child.on('exit', (code) => done(code === 0))
  })
}

/** The base image's tag, a devcontainer's Dockerfile built first into `<name>:devcontainer`. */
async function baseImage(base: ImageBase, tag: string): Promise<string> {
  if ('image' in base) {
    if (!(await present(base.image))) throw new Error(`the base image ${base.image} (from ${base.from}) is not on the Docker Engine; svc image build never pulls: docker pull ${base.image} first`)
    return base.image
  }
  const built = `${tag.replace(/:[^:/]*$/, '')}:devcontainer`
  if ((await docker(['build', '--force-rm', '-t', built, '-f', base.dockerfile, base.context])) !== 0) throw new Error(`docker build of ${base.dockerfile} failed (its output is above)`)
  return built
}

/** `svc image build`: an image for docker sessions (git, tmux and node on a base you have). */
export function imageCommand(program: Command): void {
  const image = program.command('image').description('images for docker sessions')
  image
    .command('build [repo]')
    .description("build an image with git, tmux and node for docker sessions, on --from IMAGE or the repository's .devcontainer/devcontainer.json (image or build.dockerfile); prints its tag")
    .option('--from <image>', 'the base image (one the engine has; never pulled)')
    .option('--tag <tag>', 'the new image\'s tag (default svc-<repository folder>:latest)')
    .action(async (repoArg: string | undefined, options: { from?: string; tag?: string }, command: Command) => {
      const repo = resolve(callerDirectory(), repoArg ?? '.')
      if (repoArg && !existsSync(repo)) throw new UsageError(`no such directory: ${repo}`)
      const base = options.from ? { image: options.from, from: '--from' } : devcontainerBase(repo)
      if (!base) throw new UsageError(`${repo} has no .devcontainer/devcontainer.json: name a base image the Docker Engine has with --from IMAGE (e.g. --from debian:12)`)
      const tag = options.tag ?? defaultTag(repoArg ? repo : undefined)
      const from = await baseImage(base, tag)
      const context = await mkdtemp(join(tmpdir(), 'svc-image-'))
      try {
        const linux = process.platform === 'linux'
        if (linux) await copyFile(process.execPath, join(context, NODE_IN_CONTEXT))
        await writeFile(join(context, 'Dockerfile'), imageDockerfile(from, linux))
        // --force-rm: a failed step leaves no stopped container behind.
        if ((await docker(['build', '--force-rm', '-t', tag, context])) !== 0) throw new Error(`docker build of ${tag} on ${from} failed (its output is above)`)
      } finally {
        await rm(context, { recursive: true, force: true })
      }
      reply(command, { tag, base: from }, `built ${tag} on ${from}\nuse it for docker sessions: svc config set docker.image ${tag}   (or, for one repository: svc config set --repo PATH docker.image ${tag})`)
    })
}
