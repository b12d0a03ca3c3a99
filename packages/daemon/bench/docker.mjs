// Docker sessions on this machine's engine (only containers and an image the bench made):
// CreateSession with backend docker against the same done by hand: docker run of the same
// image, the portable svc copied in and unpacked, the clone at a new branch, svc
// agent-server started and its endpoint read, and CreateSession in place on it.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createClient, SVC_VERSION } from '@svc/protocol'
import { alternateRuns, elapsedMs, fmt, IDLE, median, report, startDaemon, withTempDir } from './harness.mjs'
import { hookRepo } from './hook.mjs'
import { packSvc } from '../../../scripts/pack-svc.mjs'

const exec = promisify(execFile)
const IMAGE_SCRIPT = fileURLToPath(new URL('../../test-kit/fixtures/docker/test-image.sh', import.meta.url))
const FIXTURES = fileURLToPath(new URL('../../test-kit/fixtures', import.meta.url))
const ARTIFACT = fileURLToPath(new URL(`../../../dist-pack/svc-${SVC_VERSION}-${process.platform}-${process.arch}.tar.gz`, import.meta.url))
const CREATES = 5
const PORT = 7777

const docker = async (...args) => (await exec('docker', args, { maxBuffer: 16 * 1024 * 1024 })).stdout

/** The floor: what a person types to get an agent server in a fresh container of the image. */
async function byHand(image, origin, artifact, i) {
  const name = `svc-bench-floor-${process.pid}-${i}`
  const start = process.hrtime.bigint()
  await docker('run', '-d', '--init', '--name', name, '-p', `127.0.0.1::${PORT}`, '-v', `${origin}:${origin}`, '-v', `${FIXTURES}:${FIXTURES}:ro`, image, 'sh', '-c', 'exec tail -f /dev/null')
  await docker('cp', artifact, `${name}:/tmp/svc.tar.gz`)
  await docker('exec', name, 'sh', '-c', 'mkdir -p /opt/svc && tar -xzf /tmp/svc.tar.gz -C /opt/svc --strip-components=1 && rm /tmp/svc.tar.gz')
  const serve = `git clone -q ${origin} /root/ws && cd /root/ws && git checkout -q -b floor-${i} && mkdir -p /root/h && (nohup /opt/svc/bin/svc agent-server --home /root/h --workspace /root/ws --listen 0.0.0.0:${PORT} </dev/null >/root/h/endpoint 2>/root/h/log &); until grep -q '}' /root/h/endpoint; do sleep 0.1; done; cat /root/h/endpoint`
  const { token } = JSON.parse(await docker('exec', name, 'sh', '-c', serve))
  const port = (await docker('port', name, `${PORT}/tcp`)).trim().split(':').pop()
  await createClient({ url: `http://127.0.0.1:${port}`, token }).call('CreateSession', { repo_path: '/root/ws', title: `floor-${i}`, program: IDLE, in_place: true })
  const ms = elapsedMs(start)
  await docker('rm', '-f', '-v', name)
  return ms
}

export async function run() {
  if (!(await docker('info').then(() => true, () => false))) {
    process.stdout.write('\ndocker: skipped (no Docker Engine answers `docker info`; bash scripts/test-deps.sh installs and starts one)\n')
    return
  }
  const artifact = existsSync(ARTIFACT) ? ARTIFACT : (await packSvc()).path
  const image = `svc-bench:${process.pid}`
  await exec('sh', [IMAGE_SCRIPT, image])
  try {
    await withTempDir(async (dir) => {
      const { repo, origin } = await hookRepo(dir, {})
      const daemon = await startDaemon({ config: { docker: { image, run_args: `-v ${FIXTURES}:${FIXTURES}:ro` } }, env: { SVC_ARTIFACT: artifact } })
      try {
        const measure = {
          async svc(i) {
            const start = process.hrtime.bigint()
            const { instance } = await daemon.client.call('CreateSession', { repo_path: repo, title: `d-${i}`, backend: 'docker', program: IDLE })
            const ms = elapsedMs(start)
            await daemon.client.call('KillSession', { id: instance.id })
            return ms
          },
          floor: (i) => byHand(image, origin, artifact, i),
        }
        const times = await alternateRuns(measure, CREATES)
        report(`CreateSession of a docker session (a container of a local image, svc installed into it, clone, agent server), ${CREATES} runs alternating with the floor`, [
          ['floor: docker run + svc copied in and unpacked + clone + agent server + CreateSession in place, by hand', fmt.medianP90(times.floor)],
          ['svc CreateSession, backend docker', fmt.medianP90(times.svc)],
          ['ratio of medians', fmt.ratio(median(times.svc) / median(times.floor), '<= 1.2')],
        ])
      } finally {
        // A run cut short leaves svc's containers too: those labelled with the bench daemon's home.
        const home = existsSync(join(daemon.home, 'home-id')) ? (await readFile(join(daemon.home, 'home-id'), 'utf8')).trim() : undefined
        await daemon.stop()
        const ours = home ? (await docker('ps', '-aq', '--filter', `label=svc.home=${home}`)).split('\n').filter(Boolean) : []
        if (ours.length > 0) await docker('rm', '-f', '-v', ...ours)
        // A run cut short leaves containers: the bench's own, by name.
        const left = (await docker('ps', '-aq', '--filter', `name=svc-bench-floor-${process.pid}-`)).split('\n').filter(Boolean)
        if (left.length > 0) await docker('rm', '-f', '-v', ...left)
      }
    })
  } finally {
    await docker('image', 'rm', '-f', image).catch(() => undefined)
  }
}
