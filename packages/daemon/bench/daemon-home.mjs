// A daemon's temporary SERVICE_HOME for the benchmarks: made with its config, removed
// with the private tmux server, which outlives the daemon by design.
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { servicePaths } from '@svc/protocol'

/** `config` is config.json's content; by default no TCP listener, only the socket. */
export async function makeHome(config = { network: { listen_addr: '' } }) {
  const home = await mkdtemp('/tmp/svc-bench-')
  const paths = servicePaths(home)
  await writeFile(paths.config, JSON.stringify(config))
  return { home, paths }
}

export async function removeHome({ home, paths }) {
  await new Promise((resolve) => execFile('tmux', ['-S', paths.tmuxSocket, 'kill-server'], resolve))
  await rm(home, { recursive: true, force: true })
}
