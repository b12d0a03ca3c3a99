import type { Logger } from 'pino'
import { quote } from '@svc/protocol'
import type { Config } from '../config/config.js'
import type { Settings } from '../config/keys.js'
import { Refused } from '../errors.js'
import { freePort } from '../sessions/runtime.js'
import type { HookIntent } from '../sessions/reconcile.js'
import { stateOf, type DockerPlace, type SessionRecord } from '../sessions/record.js'
import { AGENT_PORT, containerName, credentialFile, crossingNames, localOrigin, runArgs, SERVE_FILE } from './docker-container.js'
import { elsewhere, lastLine, pipedEngine, sshEngine, type DockerEngine, type DockerRun, type SshEngine } from './docker-engine.js'
import type { ExecPipes } from './docker-pipes.js'
import type { EngineTunnels } from './docker-ssh.js'
import { parseEndpoint, redact, type Endpoint } from './endpoint.js'
import { placeOf } from './hook-remotes.js'
import type { HookScripts } from './hook-scripts.js'
import { homeId } from './home-id.js'
import type { RemoteProvider, StartPlan } from './provider.js'
import { KEPT_EXIT, keeperCommand, NOTHING_MADE_EXIT, startScript, stopScript } from './remote-scripts.js'
import { letGo, type Release, type Released, type SshLinks } from './ssh-links.js'
import { CONTAINER_SVC_DIR, installScript, probed, probeScript, svcArtifact, svcCommand, type SvcArtifact } from './svc-install.js'

/** What the docker provider takes from the home. */
export interface DockerProviderOptions {
  engine: DockerEngine
  /** The way to an engine on another machine (docker.host ssh://), and its sessions' watched forwards. */
  tunnels: EngineTunnels
  links: SshLinks
  /** The way to agent servers on an engine on another machine reached over tcp://. */
  pipes: ExecPipes
  scripts: HookScripts
  /** The daemon's SERVICE_HOME (its home id, an installed svc's own artifact). */
  home: string
  /** The daemon's own environment: SVC_ARTIFACT, and where the agents' credential files are. */
  env: NodeJS.ProcessEnv
  /** The session's pane environment as a local session of its program would get it. */
  paneEnv(record: SessionRecord): Record<string, string>
  config: Pick<Config, 'get'>
  log: Logger
}

/** A step inside the container that failed, worded to show. */
class StepFailed extends Error {}

/**
 * `backend: "docker"`: a container of `docker.image` per session, labelled with the
 * session and this home, svc installed into it (the portable svc, copied in with
 * docker cp and checked by sha256) and its agent server started there by the
 * container's keeper, published on the engine's 127.0.0.1 only (an engine on another
 * machine: forwarded here over ssh, or piped through docker exec for a tcp:// one). The
 * container goes only once its work is on origin (the stop script's push, as on a
 * provisioned host).
 */
export class DockerProvider implements RemoteProvider {
  /** svc made the container, and removes it itself. */
  readonly scripted = false

  constructor(private readonly options: DockerProviderOptions) {}

  async start(record: SessionRecord, plan: StartPlan): Promise<Endpoint | string> {
    const { engine, scripts } = this.options
    const image = plan.settings['docker.image'].trim()
    if (!image) return 'docker.image is not set: set it to an image with node 20+, git and tmux (svc image build makes one)'
    const [down, artifact] = await Promise.all([engine.unavailable(), svcArtifact(this.options.home, this.options.env).catch((error: Error) => error)])
    if (down) return down
    if (artifact instanceof Error) return artifact.message
    const host = this.options.config.get('docker.host')
    const far = sshEngine(host)
    if (elsewhere(host) && localOrigin(plan.origin, record.repo_path)) {
      return `the repository's origin ${plan.origin} is a path on this machine, which the engine at ${host.trim()} (docker.host) cannot reach: set the origin remote to a URL that machine reaches (git remote set-url origin <https:// or ssh:// URL>), or use an engine on this machine`
    }
    const place = placeOf(record)
    place.docker = { container: containerName(record.id), port: await freePort() }
    // Before the container is made: a daemon that dies from here on removes it at its next start.
    plan.intent.hook.docker = place.docker
    await scripts.journal(plan.intent)
    try {
      await this.runContainer(record, plan, image)
      const install = await this.installStep(place.docker.container, image, artifact)
      const served = await this.serve(record, plan, install)
      if (typeof served === 'string') return served
      if (far) return await this.forward(record, far, served)
      return pipedEngine(host) ? await this.pipe(record, served) : served
    } catch (error) {
      if (error instanceof StepFailed) return error.message
      throw error
    }
  }

  /**
   * Its endpoint is a published port, reached as soon as its token is read (the container
   * comes back with the engine); on an engine on another machine, once its forward is
   * back (its master reopened, the known_hosts file kept) or its listener here is.
   */
  reach(record: SessionRecord): boolean {
    const { slug, docker, endpoint } = placeOf(record)
    if (docker?.piped) {
      this.options.pipes.resume(record.id, docker.container, endpoint)
      return true
    }
    if (!docker?.engine) return false
    this.options.links.resume(record.id, slug, docker.engine, endpoint)
    return true
  }

  /**
   * The container goes once its work is on origin: its agent server stopped and its
   * workspace pushed by the stop script (run in it; a stopped container started for
   * that), then removed. Work that cannot reach origin keeps the container; an engine
   * that does not answer keeps everything.
   */
  async stop(record: SessionRecord, how: Omit<Release, 'branch'>): Promise<Released> {
    const place = placeOf(record)
    if (!place.docker) return { removed: true }
    const released = await this.release(place.docker.container, place.slug, { ...how, branch: record.branch })
    if (letGo(released, how.force)) {
      await this.unforward(record.id, place.slug, place.docker)
      delete place.docker
    }
    return released
  }

  describe(): string {
    return 'docker'
  }

  /** A container an interrupted start made (its intent names it): released as a record's would be. */
  async undo({ id, hook: { docker, slug, branch } }: HookIntent): Promise<void> {
    if (!docker) return
    const released = await this.release(docker.container, slug, { branch, discard: false, force: true })
    await this.unforward(id, slug, docker)
    if ('kept' in released) this.options.log.warn({ container: docker.container, slug, why: released.kept }, 'an interrupted start left its container, holding work origin lacks')
  }

  /** Containers labelled with this home that no session or pending intent names: their work pushed, then removed; engine directories no master uses. */
  async sweep(named: ReadonlySet<string>): Promise<void> {
    const { engine, log } = this.options
    const down = await engine.unavailable()
    // After the engine was asked: the master of the engine in use is kept.
    await this.options.tunnels.sweep()
    if (down) return
    const home = await homeId(this.options.home)
    for (const container of await engine.labelled(`svc.home=${home}`)) {
      const labels = await engine.labels(container)
      if (named.has(labels['svc.session'] ?? '')) continue
      log.warn({ container }, 'removing a container no session names')
      const released = await this.release(container, labels['svc.slug'], { branch: labels['svc.branch'] ?? '', discard: false, force: true })
      if (!('removed' in released)) log.warn({ container, why: Object.values(released)[0] }, 'kept a container no session names')
    }
  }

  close(): Promise<void> {
    this.options.pipes.closeAll()
    return this.options.links.close()
  }

  // ---------------------------------------------------------------- steps

  /** The agent server's port on the engine's machine, forwarded here over the engine's master and watched: the endpoint here, or why not. */
  private async forward(record: SessionRecord, far: SshEngine, served: Endpoint): Promise<Endpoint | string> {
    const docker = placeOf(record).docker as DockerPlace
    const conn = await this.options.tunnels.attach(record.id, far).catch((error: Error) => {
      throw new StepFailed(error.message)
    })
    // Before the forward: a failed one's stop releases the session's share of the master.
    docker.engine = { ...far, remote_port: docker.port }
    const local = await this.options.links.watch(record.id, placeOf(record).slug, conn, docker.port)
    if (typeof local === 'string') return `could not forward a local port to the container's agent server on ${conn.name}: ${local}`
    return { ...served, url: `http://127.0.0.1:${local}` }
  }

  /** The agent server reached through the engine itself, by a listener here: the endpoint here. */
  private async pipe(record: SessionRecord, served: Endpoint): Promise<Endpoint> {
    const docker = placeOf(record).docker as DockerPlace
    docker.piped = true
    return { ...served, url: `http://127.0.0.1:${await this.options.pipes.open(record.id, docker.container)}` }
  }

  /** A session's forward and its share of the engine's master, or its listener here, end when it has them. */
  private async unforward(id: string, slug: string, docker: DockerPlace): Promise<void> {
    this.options.pipes.close(id)
    if (docker.engine) await this.options.links.release(id, slug, docker.engine, undefined)
  }

  private async runContainer(record: SessionRecord, { origin }: StartPlan, image: string): Promise<void> {
    const { engine, config, env } = this.options
    const docker = placeOf(record).docker as DockerPlace
    const paneEnv = this.options.paneEnv(record)
    const names = crossingNames(paneEnv)
    const mounts: string[] = []
    // An engine on another machine was refused a local origin (start).
    const local = localOrigin(origin, record.repo_path)
    if (local) mounts.push(`${local}:${local}`)
    if (config.get('docker.mount_agent_credentials') === true) {
      const file = credentialFile(record.program, env, await this.homeOf(image))
      if (file) mounts.push(`${file.source}:${file.target}:ro`)
    }
    // The slug and branch let a start's sweep push what a container no record names holds before removing it.
    const labels = { 'svc.session': record.id, 'svc.home': await homeId(this.options.home), 'svc.slug': placeOf(record).slug, 'svc.branch': record.branch }
    const args = runArgs({ name: docker.container, image, labels, port: docker.port, env: names, mounts, runArgs: config.get('docker.run_args'), command: keeperCommand(SERVE_FILE) })
    const values = Object.fromEntries(names.map((name) => [name, paneEnv[name] as string]))
    const run = await engine.run(args, { env: values })
    if (run.code === 0) return
    // Made but never started (a port taken there), or not made at all: nothing of the session is in it.
    await engine.run(['rm', '-f', '-v', docker.container])
    if (/No such image/i.test(run.stderr)) throw new StepFailed(`the image ${image} (docker.image) is not on the Docker Engine: build it (svc image build) or pull it, then create again`)
    throw new StepFailed(`docker run of ${image} failed: ${redact(lastLine(run.stderr), ...Object.values(values))}`)
  }

  /**
   * svc into the container unless it has this version: probed (node 20+, git, tmux), the
   * tarball copied in; the script that checks and unpacks it (run with the start script,
   * in one exec), or only the copy's removal when the image has this svc already. An
   * engine on this machine gets the copy while the probe runs (a copy there is cheap, and
   * a docker exec is the slowest step of a create); one elsewhere only when it is needed.
   */
  private async installStep(container: string, image: string, artifact: SvcArtifact): Promise<string> {
    const copy = `/tmp/${artifact.name}.tar.gz`
    const copyIn = () => this.options.engine.run(['cp', artifact.tarball, `${container}:${copy}`])
    const early = elsewhere(this.options.config.get('docker.host')) ? undefined : copyIn()
    const probe = await this.exec(container, probeScript(artifact, CONTAINER_SVC_DIR))
    const copied = early && (await early)
    if (probe.code === NOTHING_MADE_EXIT) throw new StepFailed(`the image ${image} cannot run svc: ${lastLine(probe.stderr)}`)
    const verdict = probed(probe.stdout)
    if (probe.code !== 0 || !verdict) throw new StepFailed(`could not look for svc in the container of ${image}: ${lastLine(probe.stderr) || `exit ${probe.code}`}`)
    const removeCopy = `rm -f '${copy}'\n`
    if (verdict === 'installed') return copied ? removeCopy : ''
    const { code, stderr } = copied ?? (await copyIn())
    if (code !== 0) throw new StepFailed(`could not copy svc into the container (docker cp: ${lastLine(stderr)})`)
    // In a subshell: its own exit (0 when svc is there already) does not end the start script.
    return `(\n${installScript(artifact, CONTAINER_SVC_DIR, copy)}) || { printf 'could not install svc in the container\\n' >&2; exit 1; }\n${removeCopy}`
  }

  /** svc's install, then the start script, in the container: the clone at the branch, the keeper's agent server, its endpoint as published here. */
  private async serve(record: SessionRecord, { origin, branch, base, restore }: StartPlan, install: string): Promise<Endpoint | string> {
    const { slug, docker } = placeOf(record)
    const repo = localOrigin(origin, record.repo_path) ?? origin
    const script = startScript({ slug, repo, branch, ...(base ? { base } : {}), restore, svc: svcCommand(CONTAINER_SVC_DIR), listen: `0.0.0.0:${AGENT_PORT}`, serve: SERVE_FILE })
    const run = await this.exec(docker?.container as string, install + script)
    if (run.code !== 0) return `the container could not start svc agent-server: ${redact(run.stderr.trim().split('\n').slice(-8).join('\n')) || `exit ${run.code}`}`
    try {
      const { token } = parseEndpoint(run.stdout)
      return { url: `http://127.0.0.1:${docker?.port}`, token }
    } catch (error) {
      return `the container's agent server answered oddly: ${(error as Error).message}`
    }
  }

  /**
   * The stop script in the container (its agent server stopped, its work pushed unless
   * discarded), then the container removed. `slug` undefined: a container whose labels
   * name no workspace (not svc's making): removed as it is.
   */
  private async release(container: string, slug: string | undefined, how: Release): Promise<Released> {
    const { engine } = this.options
    const state = await engine.run(['inspect', '--format', '{{.State.Running}}', container])
    if (state.code !== 0) {
      if (/no such (object|container)/i.test(state.stderr)) return { removed: true }
      return { unreachable: `the Docker Engine does not answer (${lastLine(state.stderr)})` }
    }
    if (!how.discard && slug !== undefined) {
      if (state.stdout.trim() !== 'true') await engine.run(['start', container])
      const stopped = await this.exec(container, stopScript({ slug, branch: how.branch, discard: false }))
      if (stopped.code === KEPT_EXIT) return { kept: lastLine(stopped.stderr) || 'its work could not be put on origin' }
      if (stopped.code !== 0) return { kept: `the stop script did not run to its end in ${container} (${lastLine(stopped.stderr) || `exit ${stopped.code}`})` }
    }
    const removed = await engine.run(['rm', '-f', '-v', container])
    if (removed.code !== 0 && !/no such container/i.test(removed.stderr)) return { unreachable: `docker rm ${container} failed (${lastLine(removed.stderr)})` }
    return { removed: true }
  }

  private exec(container: string, script: string): Promise<DockerRun> {
    return this.options.engine.run(['exec', container, 'sh', '-c', script])
  }

  /** The home directory of the image's user, where a credential file is mounted. */
  private async homeOf(image: string): Promise<string> {
    const run = await this.options.engine.run(['image', 'inspect', '--format', '{{range .Config.Env}}{{println .}}{{end}}', image])
    const home = run.stdout.split('\n').find((line) => line.startsWith('HOME='))
    return home ? home.slice('HOME='.length) : '/root'
  }
}

/**
 * A config write that moves docker.host while a docker session's container lives is
 * refused: svc would then ask the new engine for that container, and a kill there would
 * find none and leave the old one, with its work, behind.
 */
export function refuseEngineSwitch(records: Iterable<SessionRecord>, next: Settings, previous: Settings): void {
  const [from, to] = [previous['docker.host'].trim(), next['docker.host'].trim()]
  if (from === to) return
  for (const record of records) {
    if (!record.remote?.docker || stateOf(record) === 'archived') continue
    throw new Refused(`docker session ${quote(record.title)} runs on the engine at ${from || "docker's default"}: archive or kill its docker sessions first, then change docker.host`)
  }
}
