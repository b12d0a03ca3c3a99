import { basename, dirname } from 'node:path'
import { pino, type Logger } from 'pino'
import { createStream, type RotatingFileStream } from 'rotating-file-stream'
import { logRedaction } from './redact.js'

export interface Rotation {
  maxSizeMb: number
  maxBackups: number
}

/**
 * The daemon log, rotated by size. The rotation limits are config keys applied in place,
 * so the file stream behind the logger can be replaced while it runs.
 */
export class DaemonLog {
  readonly logger: Logger
  private stream: RotatingFileStream
  private rotation: Rotation

  constructor(
    private readonly path: string,
    rotation: Rotation,
  ) {
    this.rotation = rotation
    this.stream = this.open(rotation)
    this.logger = pino({ base: { pid: process.pid }, ...logRedaction }, { write: (line: string) => this.stream.write(line) })
  }

  rotate(rotation: Rotation): void {
    if (rotation.maxSizeMb === this.rotation.maxSizeMb && rotation.maxBackups === this.rotation.maxBackups) return
    const previous = this.stream
    this.rotation = rotation
    this.stream = this.open(rotation)
    previous.end()
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(() => resolve()))
  }

  private open({ maxSizeMb, maxBackups }: Rotation): RotatingFileStream {
    const stream = createStream(basename(this.path), {
      path: dirname(this.path),
      size: `${maxSizeMb}M`,
      rotate: maxBackups,
      mode: 0o600,
    })
    stream.on('error', (error) => process.stderr.write(`svc daemon: log: ${error.message}\n`))
    return stream
  }
}
