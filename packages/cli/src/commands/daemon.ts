import { createReadStream, existsSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { Command, InvalidArgumentError } from 'commander'
import { alive, UnreachableError, type ServicePaths } from '@svc/protocol'
import { probe, resolvePaths, spawnDaemon } from '../daemon-process.js'
import { localOnly } from '../daemon-target.js'
import { EXIT } from '../exit.js'
import { autostartCommands } from './daemon-autostart.js'
import { outputOf, printFields, printJson } from '../output.js'

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' }

/** A pino JSON line as a person reads it; anything else as it is. */
function readableLogLine(line: string): string {
  let record: Record<string, unknown>
  try {
    record = JSON.parse(line) as Record<string, unknown>
  } catch {
    return line
  }
  const { time, level, msg, pid: _pid, err, ...extra } = record
  const when = typeof time === 'number' ? new Date(time).toISOString() : ''
  const fields = Object.entries(extra).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
  const failure = err && typeof err === 'object' ? [`error=${(err as { message?: string }).message ?? ''}`] : []
  return [when, LEVELS[level as number] ?? String(level), msg, ...fields, ...failure].filter(Boolean).join(' ')
}

async function stop(paths: ServicePaths): Promise<boolean> {
  const health = await probe(paths)
  // No pid file (or unreadable): nothing we can stop.
  const pid = health?.pid ?? Number.parseInt(await readFile(paths.pid, 'utf8').catch(() => ''), 10)
  if (!Number.isInteger(pid) || !alive(pid)) return false
  process.kill(pid, 'SIGTERM')
  const deadline = Date.now() + 15_000
  while (alive(pid)) {
    if (Date.now() > deadline) throw new UnreachableError(`the daemon (pid ${pid}) did not stop within 15s`, 'ETIMEDOUT')
    await sleep(50)
  }
  return true
}

async function follow(path: string, from: number, print: (line: string) => void): Promise<never> {
  let offset = from
  let partial = ''
  for (;;) {
    const size = existsSync(path) ? statSync(path).size : 0
    if (size < offset) offset = 0 // rotated
    if (size > offset) {
      for await (const chunk of createReadStream(path, { start: offset, end: size - 1, encoding: 'utf8' })) partial += chunk
      offset = size
      const lines = partial.split('\n')
      partial = lines.pop() ?? ''
      lines.forEach(print)
    }
    await sleep(250)
  }
}

function count(value: string): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError('expected a whole number')
  return number
}

export function daemonCommand(program: Command): void {
  const daemon = localOnly(program.command('daemon')).description('run, inspect and autostart the background daemon')

  daemon
    .command('start')
    .description('start the daemon in the background (no-op when it runs)')
    .action(async (_options, command: Command) => {
      const paths = resolvePaths()
      const running = await probe(paths)
      const health = running ?? (await spawnDaemon(paths))
      if (outputOf(command.optsWithGlobals()).json) return printJson({ started: !running, ...health })
      process.stdout.write(
        `${running ? 'already running' : 'started'}: pid ${health.pid}, version ${health.version}, socket ${paths.socket}\n`,
      )
    })

  daemon
    .command('stop')
    .description('stop the daemon (SIGTERM) and wait for it to exit')
    .action(async (_options, command: Command) => {
      const stopped = await stop(resolvePaths())
      if (outputOf(command.optsWithGlobals()).json) return printJson({ stopped })
      process.stdout.write(stopped ? 'stopped\n' : 'not running\n')
    })

  daemon
    .command('status')
    .description('show whether the daemon runs, its phase and listeners (never starts it)')
    .action(async (_options, command: Command) => {
      const paths = resolvePaths()
      const health = await probe(paths)
      const json = outputOf(command.optsWithGlobals()).json
      if (!health) {
        if (json) printJson({ running: false, socket: paths.socket })
        else process.stdout.write(`not running (no daemon at ${paths.socket})\n`)
        process.exitCode = EXIT.unreachable
        return
      }
      if (json) return printJson({ running: true, socket: paths.socket, ...health })
      printFields({ running: true, socket: paths.socket, ...health })
    })

  daemon
    .command('logs')
    .description('print the end of daemon.log')
    .option('-n, --lines <n>', 'how many lines', count, 50)
    .option('-f, --follow', 'keep printing new lines')
    .action(async (options: { lines: number; follow?: boolean }, command: Command) => {
      const { log } = resolvePaths()
      const raw = outputOf(command.optsWithGlobals()).json
      const print = (line: string) => process.stdout.write(`${raw ? line : readableLogLine(line)}\n`)
      const text = await readFile(log, 'utf8').catch(() => '') // no log yet: print nothing, follow from the start
      const lines = text.split('\n').filter(Boolean)
      lines.slice(Math.max(0, lines.length - options.lines)).forEach(print)
      if (options.follow) await follow(log, Buffer.byteLength(text), print)
    })

  autostartCommands(daemon)
}
