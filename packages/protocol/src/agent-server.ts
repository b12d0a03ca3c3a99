import Type from 'typebox'
import { Request } from './schemas/common.js'

/**
 * An agent server's push of its workspace (defaults.md "Remote backends": archive of a
 * hook session), beside the catalog and served only by `svc agent-server`: uncommitted
 * work becomes the commit `svc: snapshot before archive`, then HEAD is pushed to
 * `refs/heads/<branch>` of the workspace's `origin`. The home daemon asks for it before it
 * tears a remote down; a failed push answers an error envelope naming git's reason.
 */
export const AGENT_SERVER_PUSH_PATH = '/v1/agent-server/push'

export const AgentServerPushRequest = Request({
  branch: Type.String({ description: 'The branch of origin that HEAD is pushed to' }),
  unsaved_only: Type.Boolean({ description: 'Push only when origin lacks HEAD or there is uncommitted work (a teardown that keeps no archive)' }),
})

/** The message of the commit holding what was not committed when the session was archived. */
export const SNAPSHOT_MESSAGE = 'svc: snapshot before archive'

export interface AgentServerPushAnswer {
  /** The URL of the workspace's `origin`, as the agent server's git has it. */
  origin: string
  branch: string
  /** The commit pushed. */
  head: string
  /** The snapshot commit, when there was uncommitted work. */
  snapshot?: string
  /** With `unsaved_only`: origin had HEAD already and nothing was uncommitted, so nothing was pushed. */
  already_on_origin?: true
}
