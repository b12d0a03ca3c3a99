import type { Settings } from '../config/keys.js'
import type { HookIntent } from '../sessions/reconcile.js'
import { redact } from './endpoint.js'
import { hookArgv, runHook, type HookRun } from './hook-command.js'
import type { HookOptions } from './hook-options.js'

export type HookKey = 'remote_hooks.launch_cmd' | 'remote_hooks.provision_cmd' | 'remote_hooks.delete_cmd'

/**
 * The repository's hook scripts as svc runs them: launch_cmd, provision_cmd and
 * delete_cmd, each in its own process group (journaled while it runs, for a create or a
 * restore), their failures worded to show.
 */
export class HookScripts {
  constructor(private readonly options: Pick<HookOptions, 'hookEnv' | 'timeoutMs' | 'creations' | 'log'>) {}

  /** Rewrites a create's or restore's intent as it learns what to undo; a failed write is logged (the undo then knows less). */
  journal(intent: HookIntent): Promise<void> {
    return this.options.creations.begin(intent).catch((error: Error) => this.options.log.warn({ err: error, session: intent.title }, 'could not journal a hook step'))
  }

  /** Runs a hook; with an intent, its process group is journaled while it runs. */
  async run(settings: Settings, key: HookKey, root: string, args: string[], intent?: HookIntent): Promise<HookRun> {
    const argv = [...hookArgv(settings[key], root), ...args]
    const journaled = (pgid: number) => {
      if (!intent) return
      intent.hook.script = { pgid, command: argv.join(' ') }
      void this.journal(intent)
    }
    const run = await runHook(argv, root, this.options.hookEnv(), this.options.timeoutMs, { onSpawn: journaled })
    if (intent) delete intent.hook.script
    return run
  }

  /** Runs delete_cmd; what went wrong, or undefined when it ran cleanly. */
  async runDelete(settings: Settings, root: string, slug: string): Promise<string | undefined> {
    const run = await this.run(settings, 'remote_hooks.delete_cmd', root, ['--name', slug])
    if (run.code === 0) return undefined
    const why = run.timedOut ? `did not finish within ${this.options.timeoutMs / 1000} s` : `exited with ${run.code ?? 'a signal'}`
    const failure = `delete_cmd --name ${slug} ${why}${run.stderrTail ? `: ${redact(run.stderrTail)}` : ''}`
    this.options.log.warn({ slug, failure }, 'delete_cmd failed')
    return failure
  }

  /** Why a hook's run failed (a timeout, a non-zero exit), as a message fit to show; undefined when it exited 0. */
  failure(run: HookRun, hook: string): string | undefined {
    const stderr = run.stderrTail ? `; its stderr ends: ${redact(run.stderrTail)}` : ''
    if (run.timedOut) return `${hook} gave no answer within ${this.options.timeoutMs / 1000} s (its process group was killed)${stderr}`
    if (run.code !== 0) return `${hook} exited with ${run.code ?? 'a signal'}${stderr}`
    return undefined
  }

  /** Why a hook's answer could not be read, as a message fit to show. */
  unusable(run: HookRun, hook: string, error: unknown): string {
    return `${hook}'s answer is not usable: ${(error as Error).message}${run.stderrTail ? `; its stderr ends: ${redact(run.stderrTail)}` : ''}`
  }
}
