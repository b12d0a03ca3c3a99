import type { Config } from '../config/config.js'
import { isLoopbackHost } from '../net.js'
import type { RemotePlace, SessionRecord } from '../sessions/record.js'
import { hostOf, parseEndpoint, type Endpoint } from './endpoint.js'
import type { HookScripts } from './hook-scripts.js'
import { scriptArgs, type RemoteProvider, type StartPlan } from './provider.js'
import type { Released } from './ssh-links.js'

/**
 * `launch_cmd`: the repository's script starts an agent server wherever it likes and
 * prints its `{url, token}`; delete_cmd alone takes it away.
 */
export class LaunchProvider implements RemoteProvider {
  readonly scripted = true

  constructor(
    private readonly scripts: HookScripts,
    private readonly config: Pick<Config, 'get'>,
  ) {}

  async start(record: SessionRecord, plan: StartPlan): Promise<Endpoint | string> {
    const run = await this.scripts.run(plan.settings, 'remote_hooks.launch_cmd', record.repo_path, scriptArgs(record, plan), plan.intent)
    const failed = this.scripts.failure(run, 'launch_cmd')
    if (failed !== undefined) return failed
    let endpoint: Endpoint
    try {
      endpoint = parseEndpoint(run.stdout)
    } catch (error) {
      return this.scripts.unusable(run, 'launch_cmd', error)
    }
    return this.inClear(endpoint) ?? endpoint
  }

  /** Its endpoint is where launch_cmd said: used as soon as its token is read. */
  reach(): boolean {
    return false
  }

  /** svc made nothing of its own there: delete_cmd takes it all. */
  async stop(): Promise<Released> {
    return { removed: true }
  }

  describe(place: RemotePlace): string {
    return place.endpoint ? hostOf(place.endpoint) : 'its launch_cmd host'
  }

  /** Why an endpoint would carry the token across the network in clear; undefined when it would not. */
  private inClear({ url }: Endpoint): string | undefined {
    const { protocol, hostname } = new URL(url)
    const host = hostname.replace(/^\[|\]$/g, '')
    if (protocol !== 'http:' || isLoopbackHost(host) || this.config.get('remote_insecure_http_hosts').includes(host)) return undefined
    return `launch_cmd's agent server answers on plain http at ${host}, which is not loopback: its token would cross the network in clear; serve it over https (or a tunnel to loopback), or list ${host} in remote_insecure_http_hosts`
  }
}
