export { startDaemon, type RunningDaemon, type StartOptions } from './daemon.js'
export { serveInForeground } from './foreground.js'
export { AgentServerOptionError, startAgentServer, type AgentServerEndpoint, type AgentServerOptions } from './agent-server.js'
export { buildApp } from './app.js'
