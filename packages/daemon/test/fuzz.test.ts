import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { fuzzer, judge, READ_ONLY, sendFuzz } from '../bench/fuzz-kit.mjs'
import { startDaemon, tempHomes, type TestDaemon } from '@svc/test-kit'
import { makeRepo } from '@svc/test-kit'

/** A few thousand in CI; `pnpm bench` sends many more. FUZZ_SEED replays a run. */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_124)
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2_000)
/** Requests between two reads of the whole state. */
const WINDOW = 100
/** The share of requests that must get past the content-type gate (not 415) to the decoder and handlers. */
const PAST_GATE = 0.8

const homes = tempHomes()
let daemon: TestDaemon

beforeAll(async () => {
  const dir = await homes.make()
  const repo = await makeRepo(dir)
  // Run from an empty directory: a fuzzed relative path must not resolve to a real repository.
  daemon = await startDaemon({ home: join(dir, 'svc'), cwd: dir })
  // Something to change: a project and a task (yearly, so nothing it derives moves during the run).
  await daemon.client.call('RegisterProject', { path: repo })
  await daemon.client.call('AddTask', { task: { name: 'kept', prompt: 'p', cron_expr: '0 0 1 1 *', project_path: repo } })
})
afterAll(homes.release)

/** Everything a refused request must leave as it was. */
async function state(): Promise<string> {
  const reads = ['ListTasks', 'Snapshot', 'ListProjects', 'GetConfig'] as const
  return JSON.stringify(await Promise.all(reads.map((name) => daemon.client.call(name, {}))))
}

it(`answers ${REQUESTS} hostile requests inside the contract, and the refused ones change nothing`, { timeout: 600_000 }, async () => {
  const requests = fuzzer(SEED, { hugeChars: 200_000 })
  const statuses: Record<number, number> = {}
  const findings: string[] = []
  let baseline = await state()
  let accepted = 0
  let windowAccepted = false
  let windowsChecked = 0
  const started = Date.now()
  for (let sent = 1; sent <= REQUESTS; sent++) {
    const request = requests.next()
    const reply = await sendFuzz(daemon.paths.socket, request)
    statuses[reply.status] = (statuses[reply.status] ?? 0) + 1
    for (const finding of judge(reply)) {
      findings.push(`#${sent} ${request.method} ${request.path.slice(0, 80)}: ${finding}${reply.error ? ` (${reply.error})` : ''}`)
    }
    if (reply.status === 200 && !READ_ONLY.has(request.route)) {
      accepted++
      windowAccepted = true
    }
    if (sent % WINDOW === 0 || sent === REQUESTS) {
      const now = await state()
      // A window with an accepted mutation may change state; one of refusals only must not.
      if (!windowAccepted) {
        windowsChecked++
        if (now !== baseline) findings.push(`state changed by refused requests ${sent - WINDOW + 1}..${sent}`)
      }
      baseline = now
      windowAccepted = false
    }
  }
  const seconds = (Date.now() - started) / 1000
  const pastGate = 1 - (statuses[415] ?? 0) / REQUESTS
  process.stdout.write(
    `fuzz: seed ${SEED}, ${REQUESTS} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(statuses)}; ` +
      `${(pastGate * 100).toFixed(0)} % past the content-type gate; ` +
      `${accepted} accepted mutations; ${windowsChecked} windows of refusals compared; ${findings.length} findings\n`,
  )
  expect(findings).toEqual([])
  expect(windowsChecked).toBeGreaterThan(0)
  expect(pastGate).toBeGreaterThanOrEqual(PAST_GATE)
})
