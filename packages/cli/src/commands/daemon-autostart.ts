import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname } from 'node:path'
import type { Command } from 'commander'
import { loginService, type LoginService } from '../autostart-files.js'
import { daemonEntry, resolvePaths } from '../daemon-process.js'
import { UsageError } from '../exit.js'
import { outputOf, printJson } from '../output.js'

/** The login service for this machine: this node, this daemon, this SERVICE_HOME and PATH. */
function thisLoginService(): LoginService {
  const platform = process.platform
  if (platform !== 'linux' && platform !== 'darwin') {
    throw new UsageError(`autostart knows Linux (systemd) and macOS (launchd), not ${platform}`)
  }
  const launch = { node: process.execPath, entry: daemonEntry(), serviceHome: resolvePaths().home, path: process.env.PATH }
  return loginService(platform, homedir(), launch, process.getuid?.() ?? 0)
}

/** A command as a person would type it again. */
function shown(argv: string[]): string {
  return argv.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)).join(' ')
}

/** How a service manager's command went: `missing` when the manager is not installed. */
type Managed = { ok: true } | { ok: false; missing: boolean; reason: string }

function manage(argv: string[]): Managed {
  const [tool = '', ...args] = argv
  const result = spawnSync(tool, args, { encoding: 'utf8', timeout: 30_000 })
  if (result.status === 0) return { ok: true }
  const missing = result.error !== undefined && 'code' in result.error && result.error.code === 'ENOENT'
  const said = result.error?.message ?? ((result.stderr || result.stdout).trim().replace(/\s*\n\s*/g, '; ') || `exit code ${result.status}`)
  return { ok: false, missing, reason: missing ? `${tool} is not installed` : `${shown(argv)} failed: ${said}` }
}

function warn(message: string): void {
  process.stderr.write(`warning: ${message}\n`)
}

export function autostartCommands(daemon: Command): void {
  daemon
    .command('install')
    .description('start the daemon at login and restart it on failure (systemd user unit or launchd agent)')
    .option('--print', 'only print the service file; write nothing')
    .action(async (options: { print?: boolean }, command: Command) => {
      const service = thisLoginService()
      // The file itself, even to a pipe, so `--print > file` is the service file.
      if (options.print) return void process.stdout.write(service.text)
      const replaced = existsSync(service.file)
      await mkdir(dirname(service.file), { recursive: true })
      await writeFile(service.file, service.text)
      // A replaced service is stopped first, so the one started next runs the new file.
      if (replaced) manage(service.disable)
      const enabled = manage(service.enable)
      if (!enabled.ok) {
        // A container or an ssh shell often has no user service manager to talk to.
        warn(
          `wrote ${service.file} but could not enable it (${enabled.reason}); ` +
            `run this where your user service manager answers (a desktop or login session): ${shown(service.enable)}`,
        )
      }
      if (outputOf(command.optsWithGlobals()).json) {
        return printJson({ file: service.file, enabled: enabled.ok, enable: shown(service.enable) })
      }
      process.stdout.write(`${enabled.ok ? 'installed and started' : 'wrote'} ${service.file}\n`)
    })

  daemon
    .command('uninstall')
    .description('stop and remove the login service written by svc daemon install')
    .action(async (_options, command: Command) => {
      const service = thisLoginService()
      const installed = existsSync(service.file)
      // Disabled while its file still names it; with no service manager installed nothing runs it.
      const disabled = installed ? manage(service.disable) : { ok: true as const }
      if (!disabled.ok && !disabled.missing) warn(`could not disable it (${disabled.reason}); removing the file anyway`)
      await rm(service.file, { force: true })
      if (outputOf(command.optsWithGlobals()).json) return printJson({ file: service.file, removed: installed })
      process.stdout.write(installed ? `removed ${service.file}\n` : `not installed (no ${service.file})\n`)
    })
}
