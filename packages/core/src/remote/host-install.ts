import { createReadStream } from 'node:fs'
import type { Logger } from 'pino'
import type { Config } from '../config/config.js'
import { CONFIG_KEYS } from '../config/keys.js'
import { redact } from './endpoint.js'
import type { HookRun } from './hook-command.js'
import { NOTHING_MADE_EXIT } from './remote-scripts.js'
import type { Prepare } from './ssh-links.js'
import type { SshConnection } from './ssh.js'
import { hostSvcDir, installScript, probed, probeScript, svcArtifact, svcCommand } from './svc-install.js'

export interface HostInstallOptions {
  config: Pick<Config, 'get'>
  /** SERVICE_HOME and the daemon's environment: where svcArtifact finds the tarball. */
  home: string
  env: NodeJS.ProcessEnv
  log: Logger
}

function said(run: HookRun): string {
  return redact(run.stderrTail.trim().split('\n').at(-1) ?? '') || (run.timedOut ? 'it did not finish in time' : `it exited with ${run.code ?? 'a signal'}`)
}

/**
 * How ssh sessions get the svc they start on their host: `remote_svc_command` when the
 * user set it (it overrides, nothing is installed); otherwise this svc's portable tarball,
 * installed into `~/.svc-agent/versions/<version>` unless the host holds it already (the
 * probe compares sha256s), copied on the master's stdin and checked there. Sessions that
 * start at once on one host share one probe and one copy. A host without node 20+, git
 * or tmux is refused with the probe's line, nothing made there.
 */
export function hostInstall({ config, home, env, log }: HostInstallOptions): Prepare {
  const underway = new Map<string, Promise<string>>()
  const install = async (conn: SshConnection): Promise<string> => {
    const artifact = await svcArtifact(home, env)
    const dir = hostSvcDir(artifact)
    const probe = await conn.exec(probeScript(artifact, dir))
    if (probe.code === NOTHING_MADE_EXIT) throw new Error(`${conn.name} cannot run svc: ${said(probe)}`)
    const verdict = probed(probe.stdout)
    if (verdict === undefined) throw new Error(`could not look for svc on ${conn.name}: ${said(probe)}`)
    if (verdict === 'absent') {
      const run = await conn.send(installScript(artifact, dir), createReadStream(artifact.tarball))
      if (run.code !== 0) throw new Error(`could not install svc ${artifact.version} on ${conn.name}: ${said(run)}`)
      log.info({ host: conn.name, version: artifact.version, sha256: artifact.sha256 }, 'svc installed on the host')
    }
    return svcCommand(dir)
  }
  return async (conn) => {
    const configured = config.get('remote_svc_command')
    if (configured !== CONFIG_KEYS.remote_svc_command.default) return configured
    let running = underway.get(conn.dir)
    if (!running) {
      running = install(conn).finally(() => underway.delete(conn.dir))
      underway.set(conn.dir, running)
    }
    return running
  }
}
