import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import type { Socket } from 'node:net'
import { SerialQueue } from '../serial.js'

export interface Launched {
  code: number
  stdout: string
  stderr: string
}

/** A shell waiting for work must not keep the daemon's process alive; one at work must. */
function hold(shell: ChildProcessWithoutNullStreams, held: boolean): void {
  for (const pipe of [shell.stdout, shell.stderr] as unknown as Socket[]) {
    if (held) pipe.ref()
    else pipe.unref()
  }
}

/** One argument for /bin/sh, single-quoted. */
export const shellQuote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`

/**
 * A long-lived /bin/sh that starts programs for the daemon. Forking the daemon (a large
 * process) costs it milliseconds of CPU per program, which a poll loop starting tmux every
 * tick pays over and over; the small shell forks for a fraction of that, and the daemon
 * only writes a line and reads the output back. One program at a time; a shell that died
 * is replaced by the next call.
 */
export class Launcher {
  private shell: ChildProcessWithoutNullStreams | undefined
  private readonly queue = new SerialQueue()
  /** Ends each program's output; random, so no program's own output can fake it. */
  private readonly mark = `\u0001svc-launched-${randomBytes(8).toString('hex')}:`

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  run(argv: string[]): Promise<Launched> {
    return this.queue.run(() => this.launch(argv))
  }

  close(): void {
    this.shell?.stdin.end()
    this.shell = undefined
  }

  private start(): ChildProcessWithoutNullStreams {
    const shell = spawn('/bin/sh', [], { env: this.env, stdio: 'pipe' })
    shell.stdout.setEncoding('utf8')
    shell.stderr.setEncoding('utf8')
    // A dead shell shows as `exit` below; its closed stdin must not throw meanwhile.
    shell.stdin.on('error', () => {})
    shell.on('error', () => {})
    shell.once('exit', () => {
      if (this.shell === shell) this.shell = undefined
    })
    shell.unref()
    ;(shell.stdin as unknown as Socket).unref()
    hold(shell, false)
    return shell
  }

  private launch(argv: string[]): Promise<Launched> {
    const shell = (this.shell ??= this.start())
    const mark = shellQuote(this.mark)
    return new Promise((resolve, reject) => {
      let stdout = ''
      let stderr = ''
      let code: number | undefined
      let errorsDone = false
      const settle = (outcome: () => void) => {
        hold(shell, false)
        shell.stdout.off('data', onOut)
        shell.stderr.off('data', onErr)
        shell.off('exit', onExit)
        outcome()
      }
      const finish = () => {
        if (code !== undefined && errorsDone) settle(() => resolve({ code: code as number, stdout, stderr }))
      }
      /** A stream's reader: its text before the mark, and what follows the mark, once that line is whole. */
      const untilMark = (done: (text: string, tail: string) => void) => {
        let text = ''
        return (chunk: string) => {
          const from = Math.max(0, text.length - this.mark.length)
          text += chunk
          const at = text.indexOf(this.mark, from)
          if (at === -1 || !text.endsWith('\n')) return
          done(text.slice(0, at), text.slice(at + this.mark.length))
        }
      }
      const onOut = untilMark((text, tail) => {
        stdout = text
        code = Number(tail)
        finish()
      })
      const onErr = untilMark((text) => {
        stderr = text
        errorsDone = true
        finish()
      })
      const onExit = () => settle(() => reject(new Error(`the launcher shell exited while running ${argv[0] ?? ''}`)))
      hold(shell, true)
      shell.stdout.on('data', onOut)
      shell.stderr.on('data', onErr)
      shell.once('exit', onExit)
      // stdin is the shell's script: the program must not read it.
      shell.stdin.write(`${argv.map(shellQuote).join(' ')} </dev/null; printf '%s%d\\n' ${mark} $?; printf '%s\\n' ${mark} >&2\n`)
    })
  }
}
