import { open } from 'node:fs/promises'

/** The last `lines` lines of a log, reading at most its last `bytes` bytes; none when it is absent. */
export async function logTail(path: string, lines: number, bytes: number): Promise<string[]> {
  const file = await open(path, 'r').catch(() => undefined) // no log: a daemon that never started here
  if (file === undefined) return []
  try {
    const { size } = await file.stat()
    const start = Math.max(0, size - bytes)
    const buffer = Buffer.alloc(size - start)
    await file.read(buffer, 0, buffer.length, start)
    const text = buffer.toString('utf8')
    // Read from the middle of the file: its first line is cut, so it goes.
    const whole = start > 0 ? text.slice(text.indexOf('\n') + 1) : text
    return whole.split('\n').filter(Boolean).slice(-lines)
  } finally {
    await file.close()
  }
}

/** A pino line of daemon.log, or undefined for anything else. */
export interface LogEntry {
  level?: number
  time?: number
  msg?: string
  err?: { message?: string }
}

export function logEntry(line: string): LogEntry | undefined {
  try {
    const entry: unknown = JSON.parse(line)
    return entry !== null && typeof entry === 'object' ? (entry) : undefined
  } catch {
    return undefined
  }
}

/** pino's error and fatal levels. */
export const ERROR_LEVEL = 50
