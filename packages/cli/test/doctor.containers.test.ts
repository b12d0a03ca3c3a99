import { execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runCli, tempHomes } from '@svc/test-kit'

// Containers a docker session left (its record gone), as a crash between the two would:
// doctor names those labelled with this home only, and --fix keeps them (their work is
// not known to be on origin), saying how they go.
const homes = tempHomes()
const image = `svc-doctor-empty:${process.pid}`
const made: string[] = []
let home: string

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8' }).trim()
const container = (labels: Record<string, string>) => {
  const name = docker('create', ...Object.entries(labels).flatMap(([key, value]) => ['--label', `${key}=${value}`]), image, '/none')
  made.push(name)
  return docker('inspect', '--format', '{{.Name}}', name).replace(/^\//, '')
}

beforeAll(async () => {
  home = join(await homes.make(), 'svc')
  await mkdir(home, { mode: 0o700 })
  await writeFile(join(home, 'home-id'), 'feedfacefeedface\n')
  // An image of nothing: created, never run.
  execFileSync('docker', ['import', '-', image], { input: execFileSync('tar', ['-c', '--files-from', '/dev/null']) })
})

afterAll(async () => {
  if (made.length) docker('rm', '-f', ...made)
  docker('rmi', image)
  await homes.release()
})

it("names a container of this home whose session is gone, not another home's, and --fix keeps it saying how it goes", async () => {
  const ours = container({ 'svc.home': 'feedfacefeedface', 'svc.session': 'gone-session' })
  const theirs = container({ 'svc.home': 'another-home', 'svc.session': 'gone-session' })
  const run = await runCli(['doctor', '--json', '--fix'], { SERVICE_HOME: home })
  const report = JSON.parse(run.stdout) as { checks: Array<{ name: string; ok: boolean; detail: string }>; fixed: Array<{ what: string; result: string; why?: string }> }
  const leftovers = report.checks.filter((check) => check.name.startsWith('leftover'))
  expect(leftovers.map((check) => `${check.name}: ${check.detail}`)).toEqual([expect.stringMatching(new RegExp(`^leftover container: ${ours}: `))])
  expect(report.fixed).toEqual([{ what: `container ${ours}`, result: 'kept', why: expect.stringContaining('may hold work not on origin') }])
  expect(run.code).toBe(1)
  expect(docker('ps', '-a', '--format', '{{.Names}}').split('\n')).toEqual(expect.arrayContaining([ours, theirs]))
})
