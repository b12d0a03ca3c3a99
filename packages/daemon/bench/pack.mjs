// The portable svc (`pnpm pack:svc`): its tarball's size (budget 15 MB compressed), and the
// time from unpacking it to a daemon answering ready, against a daemon started by the
// checkout's CLI on a fresh home (the floor). Printed, never asserted.
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { build } from 'vite'
import { createClient } from '@svc/protocol'
import { packSvc } from '../../../scripts/pack-svc.mjs'
import { elapsedMs, fmt, median, report, withTempDir } from './harness.mjs'
import { makeHome, removeHome } from './daemon-home.mjs'

const CHECKOUT_CLI = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url))
const WEB = fileURLToPath(new URL('../../web/', import.meta.url))
const BUDGET_MB = 15
const RUNS = 5
const exec = promisify(execFile)

/** Milliseconds from `start` until `svc daemon start` (`argv`) has a daemon answering ready; then stops it. */
async function untilReady(argv, start) {
  const home = await makeHome()
  try {
    const env = { ...process.env, SERVICE_HOME: home.home }
    await exec(argv[0], [...argv.slice(1), 'daemon', 'start'], { env, cwd: home.home })
    const client = createClient({ socketPath: home.paths.socket })
    while ((await client.call('Health')).phase !== 'ready') await sleep(10)
    const ms = elapsedMs(start)
    await exec(argv[0], [...argv.slice(1), 'daemon', 'stop'], { env, cwd: home.home })
    return ms
  } finally {
    await removeHome(home)
  }
}

/** Unpacks the tarball into a fresh directory and starts its daemon: the whole time, and the unpack's share. */
async function fromTarball(tarball) {
  const dir = await mkdtemp('/tmp/svc-bench-')
  try {
    const start = process.hrtime.bigint()
    await exec('tar', ['-xzf', tarball, '-C', dir])
    const unpack = elapsedMs(start)
    return { total: await untilReady([join(dir, basename(tarball, '.tar.gz'), 'bin/svc')], start), unpack }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

export async function run() {
  await withTempDir(async (dir) => {
    // pack:svc bundles the built packages; `pnpm bench` builds all but the web UI.
    await build({ root: WEB, logLevel: 'silent' })
    const { path, bytes } = await packSvc({ outDir: dir })
    const portable = []
    const floor = []
    for (let i = 0; i <= RUNS; i++) {
      const ran = await fromTarball(path)
      const checkout = await untilReady([process.execPath, CHECKOUT_CLI], process.hrtime.bigint())
      if (i === 0) continue // warm-up: the first start reads everything from disk
      portable.push(ran)
      floor.push(checkout)
    }
    const total = median(portable.map((ran) => ran.total))
    report(`portable svc (pnpm pack:svc): ${basename(path)}; medians of ${RUNS} runs`, [
      ['tarball, compressed', `${(bytes / 1024 / 1024).toFixed(2)} MB (budget ${BUDGET_MB} MB)`],
      ['unpack to a ready daemon', `${fmt.ms(total)} (the unpack ${fmt.ms(median(portable.map((ran) => ran.unpack)))})`],
      ['floor: the checkout’s svc daemon start', fmt.ms(median(floor))],
      ['portable / floor', (total / median(floor)).toFixed(2)],
    ])
  })
}
