/**
 * The config assistant (defaults.md "Config assistant"), served beside the catalog:
 * `POST` spawns or reuses it and answers `{session_name}` once it is briefed, `DELETE`
 * reaps it, and `GET …/stream` is its terminal on the stream's wire format.
 */
export const CONFIG_ASSISTANT_PATH = '/v1/config-assistant'

export interface ConfigAssistantAnswer {
  /** The assistant's tmux session on the daemon's server (`svc-config-<n>`). */
  session_name: string
}

/** The assistant's terminal plane, replaying from `since` when the ring still holds it. */
export function configAssistantStreamPath(since?: bigint): string {
  return `${CONFIG_ASSISTANT_PATH}/stream${since === undefined ? '' : `?since=${since}`}`
}
