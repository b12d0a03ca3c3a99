import type { ServicePaths } from '@svc/protocol'
import { catalogOf, loadConfig, type Catalog } from './catalog.js'
import { fail, pass, type Check } from './check.js'
import { daemonCheck, daemonState } from './daemon-state.js'
import { fix, type FixResult } from './fix.js'
import { LEFTOVER_FINDERS } from './leftovers/finders.js'
import type { Leftover, Scope } from './leftovers/leftover.js'
import { readNamed } from './leftovers/named.js'
import { prerequisiteChecks, versions } from './prerequisites.js'
import { backendChecks, programChecks } from './programs.js'
import { stateDirectoryChecks } from './state-directory.js'

export interface DoctorReport {
  /** False when any check failed. */
  ok: boolean
  checks: Check[]
  /** With --fix: what became of each leftover. */
  fixed?: FixResult[]
}

const leftoverName = (leftover: Leftover) => `leftover ${leftover.kind}`

async function leftoverCheck(leftover: Leftover): Promise<Check> {
  const held = await leftover.holds?.()
  const detail = `${leftover.what}: ${leftover.why}${held ? `; it holds ${held}` : ''}`
  return fail(leftoverName(leftover), detail, held ? `svc doctor --fix keeps it; ${leftover.byHand ?? 'remove it by hand'}` : 'svc doctor --fix removes it')
}

/** The leftover's line once --fix has dealt with it. */
function fixedCheck(leftover: Leftover, fixed: FixResult, before: Check): Check {
  if (fixed.result === 'removed') return pass(leftoverName(leftover), `${leftover.what}: removed`)
  if (fixed.result === 'named') return pass(leftoverName(leftover), `${leftover.what}: in use again, left alone`)
  return fail(leftoverName(leftover), before.detail, `kept: ${fixed.why ?? ''}`)
}

async function findLeftovers(scope: Scope): Promise<{ found: Leftover[]; failures: Check[] }> {
  const found: Leftover[] = []
  const failures: Check[] = []
  for (const finder of LEFTOVER_FINDERS) {
    try {
      found.push(...(await finder(scope)))
    } catch (error) {
      failures.push(fail(`leftovers (${finder.name})`, `could not look: ${(error as Error).message}`, 'fix what the message says, then run svc doctor again'))
    }
  }
  return { found, failures }
}

async function leftoverChecks(paths: ServicePaths, catalog: Catalog, daemonRunning: boolean, applyFix: boolean): Promise<{ checks: Check[]; fixed?: FixResult[] }> {
  const named = await readNamed(paths)
  const unreadable = named.unreadable.map((file) => fail('session records', `${file} does not parse`, 'move it aside; the daemon moves it to .corrupt-<time> at its next start'))
  const repos = [...new Set([...named.repos, ...(await catalog.projects().catch(() => []))])]
  const scannedAt = Date.now()
  const { found, failures } = await findLeftovers({ paths, named, settings: catalog.settings, repos, daemonRunning })
  let checks = await Promise.all(found.map(leftoverCheck))
  let fixed: FixResult[] | undefined
  if (applyFix) {
    fixed = await fix(paths, found, scannedAt, daemonRunning)
    checks = checks.map((check, i) => fixedCheck(found[i] as Leftover, (fixed as FixResult[])[i] as FixResult, check))
  }
  const none = found.length === 0 && failures.length === 0 ? [pass('leftovers', 'none: every tmux session, worktree, branch, ssh directory, lock and temp file of svc is named')] : []
  return { checks: [...unreadable, ...checks, ...failures, ...none], ...(fixed ? { fixed } : {}) }
}

/** Every check, in the order they print; with `applyFix`, the leftovers that hold no work removed. Never starts the daemon. */
export async function runDoctor(paths: ServicePaths, applyFix: boolean): Promise<DoctorReport> {
  const found = await versions()
  const { config, check: configCheck } = await loadConfig(paths)
  const state = await daemonState(paths)
  const catalog = catalogOf(paths, config, state)
  const catalogChecks = async () => {
    try {
      return [...(await programChecks(catalog)), ...(await backendChecks(catalog))]
    } catch (error) {
      return [fail('agents and backends', `could not list them: ${(error as Error).message}`, 'see svc daemon logs')]
    }
  }
  const checks = [
    ...(await prerequisiteChecks(found)),
    ...(await stateDirectoryChecks(paths)),
    configCheck,
    await daemonCheck(paths, state),
    ...(await catalogChecks()),
  ]
  // The daemon may have started or stopped since: --fix waits for it if it runs now.
  const running = 'health' in state || 'health' in (await daemonState(paths))
  const leftovers = await leftoverChecks(paths, catalog, running, applyFix)
  checks.push(...leftovers.checks)
  return { ok: checks.every((check) => check.ok), checks, ...(leftovers.fixed ? { fixed: leftovers.fixed } : {}) }
}
