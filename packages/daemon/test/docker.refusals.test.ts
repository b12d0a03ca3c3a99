import { readdirSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestImage, containersLabelled, docker, dockerSettings, homeIdOf, removeImages, useDockerWorld } from '@svc/test-kit'

// Each refusal of a docker create is clear and leaves nothing behind: no container, no
// record, no token, no journal entry.
// Claude's credential home on this machine, which docker.mount_agent_credentials mounts from.
const claudeHome = join(tmpdir(), `svc-claude-${process.pid}`)
beforeAll(async () => {
  await mkdir(claudeHome, { recursive: true })
  await writeFile(join(claudeHome, '.credentials.json'), '{"secret":"on this machine"}\n')
})
afterAll(() => rm(claudeHome, { recursive: true, force: true }))
const world = useDockerWorld({
  env: { SVC_DOCKER_PASSED: 'passed-value', CLAUDE_CONFIG_DIR: claudeHome },
  settings: { session_env_passthrough: ['SVC_DOCKER_PASSED'], docker: { mount_agent_credentials: true } },
})
const extraImages: string[] = []
afterAll(() => removeImages(...extraImages))

const set = (key: string, value: string) => world.daemon.client.call('SetConfigValue', { key, value })
const dockerBackend = async () => (await world.daemon.client.call('ListBackends', { repo_path: world.repo })).backends.find((backend) => backend.name === 'docker')

/** A create that is refused with `message`, and nothing of it anywhere. */
async function refused(title: string, message: string) {
  const reply = await world.daemon.post('/v1/CreateSession', { repo_path: world.repo, title, backend: 'docker', prompt: 'hello' })
  expect(reply.status, reply.text).toBe(500)
  expect(reply.json.error.message).toContain(message)
  const home = homeIdOf(world.daemon.home)
  if (home) expect(containersLabelled(`svc.home=${home}`)).toEqual([])
  expect((await world.daemon.client.call('Snapshot', {})).instances.filter((row) => row.title === title)).toEqual([])
  for (const dir of ['remote-tokens', 'creating']) {
    const entries = (() => {
      try {
        return readdirSync(join(world.daemon.home, dir))
      } catch {
        return []
      }
    })()
    expect(entries, dir).toEqual([])
  }
}

describe('docker creates that cannot run', () => {
  it('are refused, saying why, when the engine does not answer; ListBackends says so', async () => {
    await set('docker.host', 'unix:///nonexistent/docker.sock')
    expect(await dockerBackend()).toMatchObject({ status: 'unavailable', reason: expect.stringContaining('the Docker Engine does not answer at unix:///nonexistent/docker.sock') })
    await refused('no-engine', 'backend "docker" is not available (the Docker Engine does not answer at unix:///nonexistent/docker.sock')
    await set('docker.host', 'tcp://box.example:2376')
    // An engine on another machine over tcp:// is asked as any other: one that does not answer refuses, nothing made.
    await refused('far-engine', 'backend "docker" is not available (the Docker Engine does not answer at tcp://box.example:2376')
    await set('docker.host', '')
    expect(await dockerBackend()).toMatchObject({ status: 'available' })
  })

  it('are refused without docker.image, or with an image the engine does not have', async () => {
    await set('docker.image', '')
    expect((await dockerBackend())?.reason).toContain('docker.image is not set')
    await refused('no-image', 'backend "docker" is not available (docker.image is not set')
    await set('docker.image', 'svc-test:not-built')
    await refused('absent-image', 'could not start docker session "absent-image": the image svc-test:not-built (docker.image) is not on the Docker Engine: build it (svc image build) or pull it, then create again; nothing of it is left')
    await set('docker.image', world.image)
  })

  it("are refused with the probe's line when the image lacks tmux or node, the container removed", async () => {
    for (const missing of ['tmux', 'node'] as const) {
      const image = await buildTestImage(`${world.image}-no-${missing}`, missing)
      extraImages.push(image)
      await set('docker.image', image)
      await refused(`no-${missing}`, `could not start docker session "no-${missing}": the image ${image} cannot run svc: ${missing} is not installed here; svc needs Node.js 20 or newer, git and tmux`)
    }
    await set('docker.image', world.image)
  })

  it('are refused when docker run made the container but could not start it (a port taken), that container removed', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as AddressInfo
    const usual = (dockerSettings(world.image).docker as { run_args: string }).run_args
    try {
      await set('docker.run_args', `${usual} -p 127.0.0.1:${port}:80`)
      await refused('port-taken', `could not start docker session "port-taken": docker run of ${world.image} failed:`)
    } finally {
      await set('docker.run_args', usual)
      taken.close()
    }
  })

  it('refuses docker.run_args, docker.host and docker.mount_agent_credentials in a repository config', async () => {
    for (const key of ['docker.run_args', 'docker.host', 'docker.mount_agent_credentials']) {
      const reply = await world.daemon.post('/v1/SetConfigValue', { key, value: 'true', repo_path: world.repo })
      expect(reply.json.error.message, key).toContain('global setting, cannot be set per repository')
    }
    // docker.image may be set there.
    const reply = await world.daemon.post('/v1/SetConfigValue', { key: 'docker.image', value: world.image, repo_path: world.repo })
    expect(reply.status, reply.text).toBe(200)
    await rm(join(world.repo, '.svc'), { recursive: true })
  })
})

describe('what crosses into a container', () => {
  it("is the passthrough environment by name, and the program's credential file read-only; never this machine's HOME or paths", async () => {
    await world.daemon.client.call('CreateSession', { repo_path: world.repo, title: 'env', backend: 'docker' })
    const row = (await world.daemon.client.call('Snapshot', {})).instances.find((instance) => instance.title === 'env')
    const container = `svc-${row?.id}`
    expect(docker('exec', container, 'sh', '-c', 'echo "$SVC_DOCKER_PASSED"').trim()).toBe('passed-value')
    expect(docker('exec', container, 'sh', '-c', 'echo $HOME').trim()).toBe('/root')
    // Named on docker run's argv, never valued there.
    expect(docker('inspect', '--format', '{{json .Args}}', container)).not.toContain('passed-value')
    // The session program's one credential file, read-only under the container's home; its credential home's path stays here.
    expect(docker('exec', container, 'cat', '/root/.claude/.credentials.json')).toBe('{"secret":"on this machine"}\n')
    expect(() => docker('exec', container, 'sh', '-c', 'echo stolen > /root/.claude/.credentials.json')).toThrow(/Read-only file system/)
    expect(docker('exec', container, 'sh', '-c', 'echo "[$CLAUDE_CONFIG_DIR]"').trim()).toBe('[]')
    await world.daemon.client.call('KillSession', { id: row?.id as string })
  })
})
