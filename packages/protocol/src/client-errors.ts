import type { ErrorBodyT } from './envelope.js'

/** The daemon (or something in front of it) answered with an error. */
export class DaemonError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBodyT,
    readonly route: string,
  ) {
    super(body.message)
    this.name = 'DaemonError'
  }

  /** Only the boolean `true` proves the daemon itself refused the request. */
  get daemonRejected(): boolean {
    return this.body.daemon_rejected === true
  }

  get committed(): boolean {
    return this.body.code === 'mutation_committed'
  }
}

/** Nothing answered: no socket, connection refused, or a timeout. */
export class UnreachableError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message)
    this.name = 'UnreachableError'
  }
}
