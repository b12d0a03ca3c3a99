import { isAbsolute, join } from 'node:path'
import { DAEMON_EXIT } from '@svc/protocol'

/** The service managers `svc daemon install` writes for, by `process.platform`. */
export type AutostartPlatform = 'linux' | 'darwin'

/** What the service runs: node on the daemon's entry, with the environment of the install. */
export interface DaemonLaunch {
  node: string
  entry: string
  serviceHome: string
  /** PATH at install time: the daemon finds tmux, git and the agents through it. Omitted when unset. */
  path?: string
}

/** A login service: its file, and the commands that start it now (and at login) and stop it for good. */
export interface LoginService {
  file: string
  text: string
  enable: string[]
  disable: string[]
}

export const SYSTEMD_UNIT = 'svc'
export const LAUNCHD_LABEL = 'dev.svc.daemon'

function environment(launch: DaemonLaunch): Array<[string, string]> {
  return [['SERVICE_HOME', launch.serviceHome], ...(launch.path === undefined ? [] : [['PATH', launch.path] as [string, string]])]
}

/** Neither format can carry a control character (a newline would end a unit line). */
function checkLaunch(launch: DaemonLaunch): void {
  const values: Array<[string, string]> = [['node', launch.node], ['entry', launch.entry], ...environment(launch)]
  for (const [name, value] of values) {
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x1f\x7f]/.test(value)) throw new Error(`${name} ${JSON.stringify(value)} holds a control character`)
  }
  for (const name of ['node', 'entry'] as const) {
    if (!isAbsolute(launch[name])) throw new Error(`the ${name} path ${JSON.stringify(launch[name])} is not absolute`)
  }
}

/**
 * One double-quoted word of a unit file: `\` and `"` are C-escaped, `%` doubled (specifiers
 * expand everywhere) and, in a command line's arguments, `$` doubled (variables expand there).
 */
function systemdWord(value: string, { argument }: { argument: boolean }): string {
  const escaped = value.replace(/[\\"]/g, (char) => `\\${char}`).replace(/%/g, '%%')
  return `"${argument ? escaped.replace(/\$/g, () => '$$') : escaped}"`
}

/** systemd takes no quote or backslash in an executable's name, escaped or not. */
function systemdExecutable(path: string): string {
  if (/["'\\]/.test(path)) throw new Error(`systemd cannot run an executable whose path holds a quote or backslash: ${path}`)
  return systemdWord(path, { argument: false })
}

export function systemdUnit(launch: DaemonLaunch): string {
  checkLaunch(launch)
  return [
    '# Written by `svc daemon install`; `svc daemon uninstall` removes it.',
    '[Unit]',
    'Description=svc daemon (coding agents in tmux sessions and git worktrees)',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${systemdExecutable(launch.node)} ${systemdWord(launch.entry, { argument: true })}`,
    ...environment(launch).map(([name, value]) => `Environment=${systemdWord(`${name}=${value}`, { argument: false })}`),
    'Restart=on-failure',
    'RestartSec=2',
    '# Another daemon already serves this SERVICE_HOME: starting again would not help.',
    `RestartPreventExitStatus=${DAEMON_EXIT.alreadyRunning}`,
    '# Stopping the service stops the daemon only: its tmux server, and the agents in it, live on.',
    'KillMode=process',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n')
}

function xml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

export function launchdPlist(launch: DaemonLaunch): string {
  checkLaunch(launch)
  const string = (value: string) => `<string>${xml(value)}</string>`
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `svc daemon install`; `svc daemon uninstall` removes it. -->',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  ${string(LAUNCHD_LABEL)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    `    ${string(launch.node)}`,
    `    ${string(launch.entry)}`,
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...environment(launch).flatMap(([name, value]) => [`    <key>${name}</key>`, `    ${string(value)}`]),
    '  </dict>',
    '  <key>RunAtLoad</key>',
    '  <true/>',
    '  <!-- Restart after a failure, not after a clean stop. -->',
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key>',
    '    <false/>',
    '  </dict>',
    '  <!-- The tmux server the daemon started, and the agents in it, outlive the daemon. -->',
    '  <key>AbandonProcessGroup</key>',
    '  <true/>',
    '</dict>',
    '</plist>',
    '',
  ].join('\n')
}

/** The service for a platform under a home directory; `uid` names the launchd GUI domain. */
export function loginService(platform: AutostartPlatform, home: string, launch: DaemonLaunch, uid: number): LoginService {
  if (platform === 'linux') {
    return {
      file: join(home, '.config', 'systemd', 'user', `${SYSTEMD_UNIT}.service`),
      text: systemdUnit(launch),
      enable: ['systemctl', '--user', 'enable', '--now', SYSTEMD_UNIT],
      disable: ['systemctl', '--user', 'disable', '--now', SYSTEMD_UNIT],
    }
  }
  const file = join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`)
  return {
    file,
    text: launchdPlist(launch),
    enable: ['launchctl', 'bootstrap', `gui/${uid}`, file],
    disable: ['launchctl', 'bootout', `gui/${uid}`, file],
  }
}
