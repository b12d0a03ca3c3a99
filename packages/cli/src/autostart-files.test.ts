import { spawnSync } from 'node:child_process'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempHomes } from '@svc/test-kit'
import { launchdPlist, loginService, systemdUnit, type DaemonLaunch } from './autostart-files.js'

// Paths with everything each format must escape: spaces, quotes, %, $, backslashes, XML markup.
const odd: DaemonLaunch = {
  node: '/opt/my node/100%/bin/node',
  entry: `/home/a b/$HOME/"q"\\x/<&>'/main.js`,
  serviceHome: '/home/a b/svc %h "x"',
  path: '/usr/bin:/opt/$x:/p q',
}

/** The plist as launchd reads it, by Python's plistlib (a real plist parser); undefined without python3. */
function parsePlist(text: string): unknown {
  const script = 'import json, plistlib, sys; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))'
  const parsed = spawnSync('python3', ['-c', script], { input: text, encoding: 'utf8' })
  if (parsed.error) return undefined
  expect(parsed.status, parsed.stderr).toBe(0)
  return JSON.parse(parsed.stdout)
}
const python = !spawnSync('python3', ['--version']).error
if (!python) console.warn('autostart-files.test.ts: python3 is missing, the plist is checked by its text only')
const analyze = !spawnSync('systemd-analyze', ['--version']).error
if (!analyze) console.warn('autostart-files.test.ts: systemd-analyze is missing, quoted paths are checked by their text only')

const homes = tempHomes()
afterEach(homes.release)

describe('the systemd user unit', () => {
  it('runs node on the entry, restarts on failure, and carries SERVICE_HOME and PATH', () => {
    const lines = systemdUnit({ node: '/usr/bin/node', entry: '/srv/svc/main.js', serviceHome: '/home/u/.svc', path: '/usr/bin:/bin' }).split('\n')
    expect(lines).toContain('ExecStart="/usr/bin/node" "/srv/svc/main.js"')
    expect(lines).toContain('Environment="SERVICE_HOME=/home/u/.svc"')
    expect(lines).toContain('Environment="PATH=/usr/bin:/bin"')
    expect(lines).toContain('Restart=on-failure')
    expect(lines).toContain('RestartPreventExitStatus=75')
    expect(lines).toContain('KillMode=process')
    expect(lines).toContain('WantedBy=default.target')
  })

  it('quotes every value: \\ and " escaped, % doubled, $ doubled in arguments only', () => {
    const lines = systemdUnit(odd).split('\n')
    expect(lines).toContain(`ExecStart="/opt/my node/100%%/bin/node" "/home/a b/$$HOME/\\"q\\"\\\\x/<&>'/main.js"`)
    expect(lines).toContain('Environment="SERVICE_HOME=/home/a b/svc %%h \\"x\\""')
    expect(lines).toContain('Environment="PATH=/usr/bin:/opt/$x:/p q"')
  })

  // verify fails when ExecStart's executable is missing: it finds this node only if the quoting holds.
  it.skipIf(!analyze)('quotes an executable path with spaces, % and $ so that systemd-analyze verify finds it', async () => {
    const dir = join(await homes.make(), 'my node 100%h $HOME')
    await mkdir(dir)
    await symlink(process.execPath, join(dir, 'node'))
    const file = join(dir, '..', 'svc.service')
    await writeFile(file, systemdUnit({ ...odd, node: join(dir, 'node') }))
    const verify = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' })
    expect(verify.status, verify.stderr).toBe(0)
    expect(verify.stderr).not.toContain(file)
  })

  it('leaves PATH out when it is unset', () => {
    expect(systemdUnit({ ...odd, path: undefined })).not.toContain('PATH=')
  })

  it('refuses what a unit cannot carry, naming it', () => {
    expect(() => systemdUnit({ ...odd, node: '/opt/it\'s/node' })).toThrow('quote or backslash')
    expect(() => systemdUnit({ ...odd, entry: 'main.js' })).toThrow('entry path "main.js" is not absolute')
    expect(() => systemdUnit({ ...odd, path: '/bin\n[Service]' })).toThrow('PATH "/bin\\n[Service]" holds a control character')
  })
})

describe('the launchd agent', () => {
  it.skipIf(!python)('is a plist that runs node on the entry at load, kept alive after a failure, with the values exact', () => {
    expect(parsePlist(launchdPlist(odd))).toEqual({
      Label: 'dev.svc.daemon',
      ProgramArguments: [odd.node, odd.entry],
      EnvironmentVariables: { SERVICE_HOME: odd.serviceHome, PATH: odd.path },
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      AbandonProcessGroup: true,
    })
    expect(parsePlist(launchdPlist({ ...odd, path: undefined }))).toMatchObject({ EnvironmentVariables: { SERVICE_HOME: odd.serviceHome } })
  })

  it('escapes XML in every value, and refuses a control character', () => {
    const text = launchdPlist(odd)
    expect(text).toContain(`<string>/home/a b/$HOME/&quot;q&quot;\\x/&lt;&amp;&gt;'/main.js</string>`)
    expect(text).toMatch(/<key>RunAtLoad<\/key>\s*<true\/>/)
    expect(text).toMatch(/<key>KeepAlive<\/key>\s*<dict>\s*<key>SuccessfulExit<\/key>\s*<false\/>/)
    expect(() => launchdPlist({ ...odd, serviceHome: '/h\u0007' })).toThrow('control character')
  })
})

describe('the login service per platform', () => {
  it('is a systemd unit under ~/.config/systemd/user on Linux, enabled with systemctl --user', () => {
    const service = loginService('linux', '/home/u', odd, 1000)
    expect(service).toMatchObject({
      file: '/home/u/.config/systemd/user/svc.service',
      text: systemdUnit(odd),
      enable: ['systemctl', '--user', 'enable', '--now', 'svc'],
      disable: ['systemctl', '--user', 'disable', '--now', 'svc'],
    })
  })

  it('is a launchd agent under ~/Library/LaunchAgents on macOS, loaded into the user\'s GUI domain', () => {
    const file = '/Users/u/Library/LaunchAgents/dev.svc.daemon.plist'
    expect(loginService('darwin', '/Users/u', odd, 501)).toEqual({
      file,
      text: launchdPlist(odd),
      enable: ['launchctl', 'bootstrap', 'gui/501', file],
      disable: ['launchctl', 'bootout', 'gui/501', file],
    })
  })
})
