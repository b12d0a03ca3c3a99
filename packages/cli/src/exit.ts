/** Exit codes scripts can branch on. */
export const EXIT = {
  ok: 0,
  /** The daemon answered with an error. */
  daemon: 1,
  /** `svc doctor` found something wrong. */
  problems: 1,
  /** The command line was wrong. */
  usage: 2,
  /** No daemon answered (not running, not startable, or timed out). */
  unreachable: 3,
  /** The request was carried out but its prompt did not arrive (delivery status not-delivered). */
  notDelivered: 4,
} as const

export class UsageError extends Error {}
