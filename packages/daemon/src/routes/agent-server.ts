import type { FastifyInstance } from 'fastify'
import { AGENT_SERVER_PUSH_PATH, AgentServerPushRequest, type AgentServerPushAnswer } from '@svc/protocol'
import { pushWorkspace, type Core } from '@svc/core'
import type { AgentServerInfo } from './health.js'

/**
 * What only `svc agent-server` serves, beside the catalog and behind its token like every
 * route: `POST /v1/agent-server/push {branch, unsaved_only?}` → the workspace's snapshot and push, which
 * the home daemon asks for before it archives the hook session running here.
 */
export function agentServerRoutes(core: Core, { workspace }: AgentServerInfo) {
  return async (app: FastifyInstance) => {
    app.post(AGENT_SERVER_PUSH_PATH, { schema: { body: AgentServerPushRequest } }, async (request) => {
      const { branch, unsaved_only } = request.body as { branch?: string; unsaved_only?: boolean }
      const data: AgentServerPushAnswer = await pushWorkspace(workspace, branch ?? '', core.sessions.subprocessEnv(), unsaved_only === true)
      return { data, error: null }
    })
  }
}
