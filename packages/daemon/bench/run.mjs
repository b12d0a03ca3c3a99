// `pnpm bench [suite …] [--check] [--record]`: every benchmark (or those named), printed
// as figures and ratios against floors measured in the same run; --check ends with the
// figures outside their budgets (budgets.mjs), --record keeps the run. Nothing is
// asserted: these machines are shared and noisy.
import { inSuite, PINNING, printed, ROUNDS, SECONDS } from './harness.mjs'
import { check, record } from './budgets.mjs'
import { run as transport } from './transport.mjs'
import { run as sessions } from './sessions.mjs'
import { run as tasks } from './tasks.mjs'
import { run as reliability } from './reliability.mjs'
import { run as events } from './events.mjs'
import { run as stream } from './stream.mjs'
import { run as relay } from './relay.mjs'
import { run as webtab } from './webtab.mjs'
import { run as tui } from './tui.mjs'
import { run as web } from './web.mjs'
import { run as hook } from './hook.mjs'
import { run as ssh } from './ssh.mjs'
import { run as sshHost } from './ssh-host.mjs'
import { run as remoteFaults } from './remote-faults.mjs'
import { run as pack } from './pack.mjs'
import { run as docker } from './docker.mjs'

const suites = { transport, sessions, tasks, reliability, events, stream, relay, webtab, tui, web, hook, ssh, 'ssh-host': sshHost, 'remote-faults': remoteFaults, pack, docker }
const args = process.argv.slice(2)
const only = args.filter((arg) => !arg.startsWith('--'))

process.stdout.write(
  `svc benchmarks: ${SECONDS}s per comparison in ${ROUNDS} alternating rounds, medians (BENCH_SECONDS, BENCH_ROUNDS); ${PINNING}\n`,
)
for (const [name, suite] of Object.entries(suites)) {
  if (only.length > 0 && !only.includes(name)) continue
  inSuite(name)
  await suite()
}
if (args.includes('--check')) await check(printed, only.length > 0 ? only : Object.keys(suites))
if (args.includes('--record')) await record(printed)
