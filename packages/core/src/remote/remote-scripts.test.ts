import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { keeperCommand, places, startScript, stopScript } from './remote-scripts.js'

/** Where the scripts put the slug's workspace and agent-server home for a user whose HOME is `home`. */
function placed(slug: string, home: string): { ws: string; home: string } {
  const [ws = '', agentHome = ''] = execFileSync('sh', ['-c', `${places(slug)}\nprintf '%s\\n%s\\n' "$ws" "$home"`], { env: { HOME: home, PATH: process.env.PATH }, encoding: 'utf8' }).split('\n')
  return { ws, home: agentHome }
}

describe("a provisioned session's places on its host", () => {
  it('are ~/svc-workspaces/<slug> and <slug>.home while the home socket fits', () => {
    expect(placed('fix-login', '/home/dev')).toEqual({ ws: '/home/dev/svc-workspaces/fix-login', home: '/home/dev/svc-workspaces/fix-login.home' })
  })

  it('keep the workspace but give the agent-server home a short hashed name when a long slug would pass the 107-byte socket limit', () => {
    const slug = 'a'.repeat(120)
    const { ws, home } = placed(slug, '/home/dev')
    expect(ws).toBe(`/home/dev/svc-workspaces/${slug}`)
    expect(home).toMatch(/^\/home\/dev\/svc-workspaces\/h-[0-9a-f]{12}\.home$/)
    expect(placed(slug, '/home/dev').home).toBe(home)
  })
})

describe("a container's agent server", () => {
  const plan = { slug: 'boxed', repo: '/srv/o.git', branch: 'me/boxed', restore: false, svc: '/opt/svc/bin/svc' }

  it('is written for the keeper to run (on all addresses, a fixed port) where a host starts it detached on loopback', () => {
    const host = startScript(plan)
    expect(host).toContain("nohup $detach /opt/svc/bin/svc agent-server --home \"$home\" --workspace \"$ws\" --listen '127.0.0.1:0'")
    const container = startScript({ ...plan, listen: '0.0.0.0:7777', serve: '/opt/svc.serve' })
    expect(container).not.toContain('nohup')
    expect(container).toContain("cat >'/opt/svc.serve.tmp' <<SERVE\necho \\$\\$ >\"$home/agent-server.pid\"\nexec /opt/svc/bin/svc agent-server --home \"$home\" --workspace \"$ws\" --listen '0.0.0.0:7777'")
    expect(container).toContain("mv '/opt/svc.serve.tmp' '/opt/svc.serve' || exit 1")
  })

  it("runs once its serve file is there, and the keeper then idles on", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-keeper-'))
    const keeper = spawn('sh', ['-c', keeperCommand(join(dir, 'serve'))], { stdio: 'ignore' })
    try {
      await sleep(300)
      expect(existsSync(join(dir, 'ran'))).toBe(false)
      await writeFile(join(dir, 'serve'), `echo ran >'${join(dir, 'ran')}'\n`)
      for (let i = 0; i < 50 && !existsSync(join(dir, 'ran')); i++) await sleep(100)
      expect(await readFile(join(dir, 'ran'), 'utf8')).toBe('ran\n')
      expect(keeper.exitCode).toBeNull()
    } finally {
      keeper.kill('SIGKILL')
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe("a session's stop script on its host", () => {
  it('removes the workspace and exits 0, and exits non-zero, the workspace kept, when the removal fails', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-stop-'))
    try {
      const { ws } = placed('done', home)
      const stop = (path: string) => spawnSync('sh', ['-c', stopScript({ slug: 'done', branch: 'me/done', discard: true })], { env: { HOME: home, PATH: path }, encoding: 'utf8' })
      // An rm that fails, as one does on a file another process still writes into a directory.
      const failing = join(home, 'bin')
      await mkdir(failing)
      await writeFile(join(failing, 'rm'), "#!/bin/sh\necho 'rm: cannot remove: Directory not empty' >&2\nexit 1\n")
      await chmod(join(failing, 'rm'), 0o755)
      await mkdir(ws, { recursive: true })
      const failed = stop(`${failing}:${process.env.PATH}`)
      expect(failed.status).toBe(1)
      expect(failed.stderr).toContain('cannot remove')
      expect(existsSync(ws)).toBe(true)
      expect(stop(process.env.PATH as string).status).toBe(0)
      expect(existsSync(ws)).toBe(false)
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })

  it("waits for another stop of the same slug to end (a dead home's, still running) instead of racing it, and takes over a lock whose holder is gone", async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-stop-'))
    try {
      const { ws, home: agentHome } = placed('raced', home)
      const origin = join(home, 'origin.git')
      execFileSync('git', ['init', '-q', '--bare', origin])
      execFileSync('git', ['clone', '-q', origin, ws], { stdio: 'ignore' })
      await writeFile(join(ws, 'work.txt'), 'not committed\n')
      // An agent server slow to stop: both stops sit in their wait for it, and would leave it together.
      await mkdir(agentHome)
      const agent = spawn('sh', ['-c', 'trap "" TERM; sleep 1.5'], { detached: true, stdio: 'ignore' })
      await writeFile(join(agentHome, 'agent-server.pid'), `${agent.pid}\n`)
      // Each stop's git calls, logged with the stop that made them.
      const bin = join(home, 'bin')
      await mkdir(bin)
      const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
      await writeFile(join(bin, 'git'), `#!/bin/sh\necho "$STOPPER" >>'${join(home, 'git.log')}'\nexec ${git} "$@"\n`)
      await chmod(join(bin, 'git'), 0o755)
      const script = stopScript({ slug: 'raced', branch: 'me/raced', discard: false })
      const stop = (name: string, env: Record<string, string> = {}) =>
        new Promise<number | null>((resolve) => {
          const child = spawn('sh', ['-s'], { env: { ...env, HOME: home, PATH: `${bin}:${process.env.PATH}`, STOPPER: name, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@localhost', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@localhost' }, stdio: ['pipe', 'ignore', 'ignore'] })
          child.stdin.end(script)
          child.once('exit', resolve)
        })
      const first = stop('first')
      await sleep(300)
      const second = stop('second')
      expect(await Promise.all([first, second])).toEqual([0, 0])
      // The first put the work on origin and removed the workspace; the second, after it, found nothing left to do.
      expect(execFileSync('git', ['--git-dir', origin, 'show', 'me/raced:work.txt'], { encoding: 'utf8' })).toBe('not committed\n')
      expect(new Set((await readFile(join(home, 'git.log'), 'utf8')).trim().split('\n'))).toEqual(new Set(['first']))
      expect(existsSync(ws)).toBe(false)
      expect(existsSync(`${ws}.stopping`)).toBe(false)

      // A lock left by a stop that is gone (its pid ended) does not hold the next one up.
      await mkdir(ws)
      await mkdir(`${ws}.stopping`)
      await writeFile(join(`${ws}.stopping`, 'pid'), `${agent.pid}\n`)
      const started = Date.now()
      expect(await stop('later')).toBe(0)
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(existsSync(ws)).toBe(false)
      expect(existsSync(`${ws}.stopping`)).toBe(false)

      // One that gives up waiting for a live holder goes on, and leaves the holder's lock as it was.
      const holder = spawn('sleep', ['30'], { stdio: 'ignore' })
      try {
        await mkdir(`${ws}.stopping`)
        await writeFile(join(`${ws}.stopping`, 'pid'), `${holder.pid}\n`)
        expect(await stop('impatient', { SVC_STOP_WAIT_TENTHS: '3' })).toBe(0)
        expect(await readFile(join(`${ws}.stopping`, 'pid'), 'utf8')).toBe(`${holder.pid}\n`)
      } finally {
        holder.kill()
      }
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })
})
