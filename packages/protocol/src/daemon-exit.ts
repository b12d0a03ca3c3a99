/** The daemon process's exit codes, which `svc` branches on when it starts one. */
export const DAEMON_EXIT = {
  ok: 0,
  /** Startup, restore or a second shutdown signal failed. */
  failed: 1,
  /** Another daemon holds the lock on this home (EX_TEMPFAIL): `svc` waits for that one. */
  alreadyRunning: 75,
} as const
