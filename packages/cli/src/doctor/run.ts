import { execFile } from 'node:child_process'

/** How long doctor waits for one program (an agent's `--version` may start slowly). */
const RUN_TIMEOUT_MS = 10_000

/** What the program printed on stdout, trimmed; undefined when it is missing, failed or took too long. */
export function output(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, timeout: RUN_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout) => resolve(error ? undefined : stdout.trim()))
  })
}

/** The first version number (`3.3a`, `2.39.5`) in a program's `--version` answer. */
export function versionIn(text: string | undefined): string | undefined {
  return text ? /\d+\.\d+[\w.-]*/.exec(text)?.[0] : undefined
}

/** Whether `version` is at least `major.minor`. */
export function atLeast(version: string, major: number, minor: number): boolean {
  const [have = 0, sub = 0] = version.split('.').map((part) => Number.parseInt(part, 10))
  return have > major || (have === major && sub >= minor)
}
