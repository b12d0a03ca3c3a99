import { spawn } from 'node:child_process'
import { CLI_MAIN } from '@svc/test-kit'

export interface RunOptions {
  cwd?: string
}

/** The shell command line that runs svc with these arguments (each single-quoted). */
function svcLine(args: string[]): string {
  return [process.execPath, CLI_MAIN, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ')
}

/** Runs svc under a pseudo-terminal, as a person would see it; resolves with its exit code and output. */
export function runInTerminal(args: string[], env: Record<string, string>, options: RunOptions = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', svcLine(args), '/dev/null'], {
      cwd: options.cwd,
      env: { ...process.env, ...env, COLUMNS: '200' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    child.on('close', (code) => resolve({ code, out: out.replace(/\r/g, '') }))
  })
}
