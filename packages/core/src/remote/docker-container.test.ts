import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { credentialFile, crossingNames, localOrigin, runArgs } from './docker-container.js'
import { elsewhere, pipedEngine } from './docker-engine.js'

describe('a docker session container', () => {
  it('publishes the agent server on 127.0.0.1 only and names its environment without values', () => {
    const args = runArgs({ name: 'svc-1', image: 'dev:1', labels: { 'svc.session': '1' }, port: 4321, env: ['ANTHROPIC_API_KEY'], mounts: ['/o.git:/o.git'], runArgs: '--memory 4g', command: 'keep' })
    expect(args).toEqual(['run', '-d', '--pull', 'never', '--init', '--restart', 'unless-stopped', '--name', 'svc-1', '--label', 'svc.session=1', '-p', '127.0.0.1:4321:7777', '-e', 'ANTHROPIC_API_KEY', '-v', '/o.git:/o.git', '--memory', '4g', 'dev:1', 'sh', '-c', 'keep'])
  })

  it("lets the agent's and passthrough names cross, never this machine's paths, user or sockets", () => {
    const pane = { PATH: '/usr/bin', HOME: '/home/me', USER: 'me', SSH_AUTH_SOCK: '/tmp/a', XDG_RUNTIME_DIR: '/run/1', CLAUDE_CONFIG_DIR: '/home/me/.claude', LANG: 'C.UTF-8', ANTHROPIC_API_KEY: 'k', MY_PASSED: 'x', SVC_SESSION_ID: '1' }
    expect(crossingNames(pane)).toEqual(['ANTHROPIC_API_KEY', 'LANG', 'MY_PASSED'])
  })

  it('mounts a local origin at its own path; one over the network is cloned over the network', () => {
    expect(localOrigin('/srv/git/o.git', '/r')).toBe('/srv/git/o.git')
    expect(localOrigin('../o.git', '/src/r')).toBe('/src/o.git')
    expect(localOrigin('file:///srv/o.git', '/r')).toBe('/srv/o.git')
    expect(localOrigin('https://example.com/o.git', '/r')).toBeUndefined()
    expect(localOrigin('git@example.com:me/o.git', '/r')).toBeUndefined()
  })

  it("finds the program's one credential file where the agent keeps it, and mounts it under the container's home", async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-cred-'))
    onTestFinished(() => rm(home, { recursive: true, force: true }))
    expect(credentialFile('claude', { HOME: home }, '/root')).toBeUndefined()
    await mkdir(join(home, '.claude'))
    await writeFile(join(home, '.claude', '.credentials.json'), '{}')
    expect(credentialFile('claude --model opus', { HOME: home }, '/home/dev/')).toEqual({ source: join(home, '.claude', '.credentials.json'), target: '/home/dev/.claude/.credentials.json' })
    await writeFile(join(home, 'auth.json'), '{}')
    expect(credentialFile('codex', { HOME: '/nowhere', CODEX_HOME: home }, '/root')).toEqual({ source: join(home, 'auth.json'), target: '/root/.codex/auth.json' })
    expect(credentialFile('aider', { HOME: home }, '/root')).toBeUndefined()
  })

  it('tells engines here from engines on another machine, and which of those are reached through docker exec', () => {
    for (const host of ['', 'unix:///var/run/docker.sock', 'tcp://127.0.0.1:2375', 'tcp://localhost', 'tcp://[::1]:2376/']) expect([elsewhere(host), pipedEngine(host)]).toEqual([false, false])
    expect([elsewhere('ssh://me@box'), pipedEngine('ssh://me@box')]).toEqual([true, false])
    for (const host of ['tcp://box:2376', ' tcp://10.1.2.3:2375 ', 'tcp://box']) expect([elsewhere(host), pipedEngine(host)]).toEqual([true, true])
  })
})
