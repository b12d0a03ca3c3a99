import { createHash } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { MAX_SOCKET_PATH_BYTES } from '@svc/protocol'
import { runHook, type HookIo, type HookRun } from './hook-command.js'
import type { SshPlace } from '../sessions/record.js'
import { commandWords } from '../infra/command-words.js'
import { shellQuote } from '../infra/launcher.js'

/** ssh makes its control socket as `<ControlPath>.<16 random characters>` first, then renames it. */
const CONTROL_TEMP_SUFFIX_BYTES = 17
/** Seconds ssh waits for a host to answer before calling it unreachable. */
const CONNECT_TIMEOUT_S = 15
/**
 * How long a remote script's output may still arrive after its ssh client exited: the
 * master writes it to the client's pipe itself, and a busy master (a shared one serving
 * many sessions) can take a while; the pipe closes when the channel does.
 */
const CHANNEL_DRAIN_MS = 10_000

/** How svc runs ssh for one session: the client command line and the environment it runs with. */
export interface SshRunner {
  /** `remote_ssh_command` as configured, e.g. `ssh -i ~/.ssh/svc_ed25519`. */
  command(): string
  env(): NodeJS.ProcessEnv
  /** How long one ssh run (a connect, a remote script) may take. */
  timeoutMs: number
}

/**
 * Where a Unix socket of an ssh directory goes (`c`, the ControlMaster's; others, a
 * forward's): in the directory when the path (and the temporary name ssh binds first)
 * fits a Unix socket, else a short name under /tmp named by a hash of that directory.
 */
export function controlPathOf(dir: string, name = 'c'): string {
  const inside = join(dir, name)
  if (Buffer.byteLength(inside) + CONTROL_TEMP_SUFFIX_BYTES <= MAX_SOCKET_PATH_BYTES) return inside
  return `/tmp/svc-ssh-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}${name === 'c' ? '' : `-${name}`}`
}

/**
 * One provisioned session's ssh connection: a ControlMaster of the system ssh, the host
 * key pinned to the one known_hosts file in the session's directory. Every run goes
 * through the master. svc's options come before the configured client's own arguments,
 * so that ssh (which keeps the first value of an option) never lets them be overridden.
 */
export class SshConnection {
  readonly knownHosts: string
  readonly controlPath: string
  /** The master's own log (ssh -E): why a connect failed. */
  private readonly log: string
  /** How many times `open` opened the master: forwards made before the last one went with the master they were on. */
  opened = 0

  constructor(
    readonly dir: string,
    readonly place: SshPlace,
    private readonly runner: SshRunner,
  ) {
    this.knownHosts = join(dir, 'known_hosts')
    this.controlPath = controlPathOf(dir)
    this.log = join(dir, 'ssh.log')
  }

  /** `user@host:port`, as messages name the host. */
  get name(): string {
    const { host, port, user } = this.place
    return `${user ? `${user}@` : ''}${host}${port ? `:${port}` : ''}`
  }

  private argv(args: string[], destination: string[] = []): string[] {
    const [program = 'ssh', ...own] = commandWords(this.runner.command())
    const { host, port, user } = this.place
    const pinned = [
      'StrictHostKeyChecking=yes',
      'GlobalKnownHostsFile=/dev/null',
      `UserKnownHostsFile=${this.knownHosts}`,
      'KnownHostsCommand=none',
      // A key published in DNS is not the key provision_cmd printed: never consulted.
      'VerifyHostKeyDNS=no',
      'CheckHostIP=no',
      'UpdateHostKeys=no',
      'BatchMode=yes',
      `ControlPath=${this.controlPath}`,
      `ConnectTimeout=${CONNECT_TIMEOUT_S}`,
      'ServerAliveInterval=5',
      'ServerAliveCountMax=3',
    ].flatMap((option) => ['-o', option])
    const target = [...(port ? ['-p', String(port)] : []), ...(user ? ['-l', user] : [])]
    return [program, ...pinned, ...target, ...own, ...args, '--', host, ...destination]
  }

  protected run(args: string[], destination: string[] = [], io: HookIo = {}): Promise<HookRun> {
    return runHook(this.argv(args, destination), this.dir, this.runner.env(), this.runner.timeoutMs, io)
  }

  /**
   * Opens the ControlMaster in the background (it outlives this call, until `exit`);
   * only when none answers (`check`). Undefined when it is up, else ssh's own account of why not.
   */
  async open(): Promise<string | undefined> {
    // A socket left by a master that died would make ssh connect without one ("already exists, disabling multiplexing").
    await rm(this.controlPath, { force: true })
    await rm(this.log, { force: true })
    const run = await this.run(['-o', 'ControlMaster=yes', '-o', 'ControlPersist=yes', '-E', this.log, '-f', '-N'])
    if (run.code === 0) {
      this.opened += 1
      return undefined
    }
    const logged = await readFile(this.log, 'utf8').catch(() => '')
    const why = [logged, run.stderrTail].map((text) => text.trim()).filter(Boolean).join('\n')
    if (run.timedOut) return `ssh did not connect within ${this.runner.timeoutMs / 1000} s${why ? `: ${why}` : ''}`
    return why || `ssh exited with ${run.code ?? 'a signal'}`
  }

  /** Whether the master answers (`ssh -O check`). */
  async check(): Promise<boolean> {
    return (await this.run(['-O', 'check'])).code === 0
  }

  /** Runs `script` with `sh` on the host, through the master; the script is its stdin, never a command line. */
  exec(script: string): Promise<HookRun> {
    return this.run(['-o', 'ControlMaster=no'], ['sh -s'], { input: script, drainMs: CHANNEL_DRAIN_MS })
  }

  /** Runs `script` with `sh -c` on the host (it holds no secret), `input` its stdin: for a script that reads data, such as a tarball. */
  send(script: string, input: Readable): Promise<HookRun> {
    return this.run(['-o', 'ControlMaster=no'], [`sh -c ${shellQuote(script)}`], { input, drainMs: CHANNEL_DRAIN_MS })
  }

  /** Forwards 127.0.0.1:`local` here to 127.0.0.1:`remote` on the host, on the master. */
  forward(local: number, remote: number): Promise<string | undefined> {
    return this.forwardSpec(`127.0.0.1:${local}:127.0.0.1:${remote}`)
  }

  /** Forwards the Unix socket `local` here (made only for this user) to the socket `remote` on the host, on the master. */
  forwardSocket(local: string, remote: string): Promise<string | undefined> {
    return this.forwardSpec(`${local}:${remote}`)
  }

  private async forwardSpec(spec: string): Promise<string | undefined> {
    const run = await this.run(['-O', 'forward', '-L', spec])
    return run.code === 0 ? undefined : run.stderrTail || `ssh -O forward exited with ${run.code ?? 'a signal'}`
  }

  /** Ends one forward of the master (a shared master outlives the session it served). */
  async cancel(local: number, remote: number): Promise<void> {
    await this.run(['-O', 'cancel', '-L', `127.0.0.1:${local}:127.0.0.1:${remote}`])
  }

  /** Ends the master (and so its forwards); a master already gone is fine. */
  async exit(): Promise<void> {
    await this.run(['-O', 'exit'])
    await rm(this.controlPath, { force: true })
  }
}
