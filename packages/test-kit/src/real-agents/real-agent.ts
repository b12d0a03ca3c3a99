/** A real agent CLI set up to talk only to a model stand-in on loopback, for svc to run. */
export interface RealAgent {
  /** Absolute command line, for svc's program_overrides.<agent>. */
  program: string
  /** To put in the daemon's environment. */
  env: Record<string, string>
  /** Names in `env` svc's pane filter drops: to add to session_env_passthrough. */
  passthrough: string[]
  /** The CLI's own version, as it reports it. */
  version: string
}
