import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DAEMON_MAIN, runCli, tempHomes } from '@svc/test-kit'

const homes = tempHomes()
afterEach(homes.release)

/**
 * A HOME, a SERVICE_HOME and a PATH of its own. `systemctl` on that PATH, when given, is a
 * stand-in that logs its arguments and exits with `exit`: the real `systemctl --user` has no
 * user bus here, and on a developer's machine it would start and stop their own services.
 */
async function machine(systemctl?: { exit: number; says?: string }) {
  const home = await homes.make()
  const bin = join(home, 'bin')
  const log = join(home, 'systemctl.log')
  await mkdir(bin)
  if (systemctl) {
    const say = systemctl.says ? `echo '${systemctl.says}' >&2\n` : ''
    await writeFile(join(bin, 'systemctl'), `#!/bin/sh\necho "$*" >> '${log}'\n${say}exit ${systemctl.exit}\n`)
    await chmod(join(bin, 'systemctl'), 0o755)
  }
  const env = { HOME: home, SERVICE_HOME: join(home, 'svc'), PATH: bin }
  return {
    home,
    env,
    unit: join(home, '.config', 'systemd', 'user', 'svc.service'),
    svc: (...args: string[]) => runCli(['daemon', ...args], env),
    calls: async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean),
  }
}

// The CLI writes a systemd unit on Linux: these run where the tests run.
describe.skipIf(process.platform !== 'linux')('svc daemon install and uninstall', () => {
  it('--print prints the unit (this node, the daemon entry, SERVICE_HOME and PATH) and writes nothing', async () => {
    const { home, env, svc, calls } = await machine({ exit: 0 })
    const printed = await svc('install', '--print')
    expect(printed.code, printed.stderr).toBe(0)
    const lines = printed.stdout.split('\n')
    expect(lines).toContain(`ExecStart="${process.execPath}" "${DAEMON_MAIN}"`)
    expect(lines).toContain(`Environment="SERVICE_HOME=${env.SERVICE_HOME}"`)
    expect(lines).toContain(`Environment="PATH=${env.PATH}"`)
    expect(lines).toContain('Restart=on-failure')
    expect(await readdir(home)).toEqual(['bin'])
    expect(await calls()).toEqual([])
  })

  it('prints a unit systemd-analyze verify accepts', async (context) => {
    if (!spawnSync('systemd-analyze', ['--version']).stdout) {
      console.warn('daemon-install.test.ts: systemd-analyze is missing, the unit is not verified')
      return context.skip()
    }
    const { home, svc } = await machine()
    const file = join(home, 'svc.service')
    await writeFile(file, (await svc('install', '--print')).stdout)
    const verify = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' })
    expect(verify.status, verify.stderr).toBe(0)
    // A warning (an unknown key, say) does not fail verify: it names the file.
    expect(verify.stderr).not.toContain(file)
  })

  it('install writes the unit and enables it with systemctl --user; uninstall disables and removes it', async () => {
    const { unit, svc, calls } = await machine({ exit: 0 })
    const printed = (await svc('install', '--print')).stdout
    const installed = await svc('install')
    expect(installed.code, installed.stderr).toBe(0)
    expect(installed.stderr).toBe('')
    expect(JSON.parse(installed.stdout)).toEqual({ file: unit, enabled: true, enable: 'systemctl --user enable --now svc' })
    expect(await readFile(unit, 'utf8')).toBe(printed)
    expect(await calls()).toEqual(['--user enable --now svc'])

    // Installing again stops the running service first, so the new file is the one started.
    expect((await svc('install')).code).toBe(0)
    expect((await calls()).slice(1)).toEqual(['--user disable --now svc', '--user enable --now svc'])

    const removed = await svc('uninstall')
    expect(removed.code, removed.stderr).toBe(0)
    expect(JSON.parse(removed.stdout)).toEqual({ file: unit, removed: true })
    expect(existsSync(unit)).toBe(false)
    expect((await calls()).at(-1)).toBe('--user disable --now svc')
  })

  it('still writes the unit when systemctl --user fails, and says it could not enable it and what to run', async () => {
    const { unit, svc } = await machine({ exit: 1, says: 'Failed to connect to bus: No medium found' })
    const installed = await svc('install')
    expect(installed.code).toBe(0)
    expect(JSON.parse(installed.stdout)).toMatchObject({ enabled: false })
    expect(existsSync(unit)).toBe(true)
    expect(installed.stderr).toContain('could not enable it')
    expect(installed.stderr).toContain('Failed to connect to bus: No medium found')
    expect(installed.stderr).toMatch(/: systemctl --user enable --now svc\n$/)

    const removed = await svc('uninstall')
    expect(removed.stderr).toContain('could not disable it')
    expect(existsSync(unit)).toBe(false)
  })

  it('still writes the unit when systemctl is missing, and uninstall then just removes it', async () => {
    const { unit, svc } = await machine()
    const installed = await svc('install')
    expect(installed.code).toBe(0)
    expect(installed.stderr).toContain('could not enable it (systemctl is not installed)')
    expect(existsSync(unit)).toBe(true)
    const removed = await svc('uninstall')
    expect(removed.code).toBe(0)
    expect(removed.stderr).toBe('')
    expect(existsSync(unit)).toBe(false)
  })

  it('uninstall without a unit changes nothing and calls no service manager', async () => {
    const { home, svc, calls } = await machine({ exit: 0 })
    const removed = await svc('uninstall')
    expect(removed.code).toBe(0)
    expect(JSON.parse(removed.stdout)).toMatchObject({ removed: false })
    expect(await calls()).toEqual([])
    expect(await readdir(home)).toEqual(['bin'])
  })
})
