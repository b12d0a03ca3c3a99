import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestImage, docker, removeImages, runCli, tempHomes } from '@svc/test-kit'

// svc image build on the real engine: a base without node gets this machine's node; a
// repository's devcontainer Dockerfile is built first; a base the engine lacks is refused.
const homes = tempHomes()
const stamp = `${process.pid}-${Date.now().toString(36)}`
const base = `svc-test:base-${stamp}`
const made = [base, `svc-test:built-${stamp}`, `svc-test:dev-${stamp}`]
let dir: string

beforeAll(async () => {
  dir = await homes.make()
  await buildTestImage(base, 'node')
}, 120_000)
afterAll(async () => {
  removeImages(...made, `svc-test:devcontainer`)
  await homes.release()
})

const svc = (...args: string[]) => runCli(['image', 'build', ...args], { SERVICE_HOME: join(dir, 'svc') })

describe('svc image build', () => {
  it('puts node on a base that lacks it and answers with the tag', async () => {
    const tag = `svc-test:built-${stamp}`
    const built = await svc('--from', base, '--tag', tag)
    expect(built.code, built.stderr).toBe(0)
    expect(JSON.parse(built.stdout)).toEqual({ tag, base })
    expect(docker('run', '--rm', tag, 'node', '-p', 'process.versions.node.split(".")[0] >= 20').trim()).toBe('true')
    expect(docker('run', '--rm', tag, 'sh', '-c', 'git --version && tmux -V && echo "$LANG"')).toMatch(/^git version .*\ntmux .*\nC\.UTF-8\n$/)
  }, 180_000)

  it("builds a repository's devcontainer Dockerfile first", async () => {
    const repo = join(dir, 'devrepo')
    await mkdir(join(repo, '.devcontainer'), { recursive: true })
    await writeFile(join(repo, '.devcontainer', 'Dockerfile'), `FROM ${base}\nRUN echo from-the-devcontainer > /marker\n`)
    await writeFile(join(repo, '.devcontainer', 'devcontainer.json'), '{\n  // the team image\n  "build": { "dockerfile": "Dockerfile" },\n}\n')
    const tag = `svc-test:dev-${stamp}`
    const built = await svc(repo, '--tag', tag)
    expect(built.code, built.stderr).toBe(0)
    expect(JSON.parse(built.stdout)).toEqual({ tag, base: 'svc-test:devcontainer' })
    expect(docker('run', '--rm', tag, 'cat', '/marker').trim()).toBe('from-the-devcontainer')
  }, 180_000)

  it('refuses a base the engine does not have (it never pulls), and a folder with no devcontainer and no --from', async () => {
    const absent = await svc('--from', `svc-test:absent-${stamp}`)
    expect(absent.code).toBe(1)
    expect(absent.stderr).toContain(`the base image svc-test:absent-${stamp} (from --from) is not on the Docker Engine; svc image build never pulls`)
    const bare = await svc(dir)
    expect(bare.code).toBe(2)
    expect(bare.stderr).toContain('has no .devcontainer/devcontainer.json: name a base image the Docker Engine has with --from IMAGE')
  })
})
