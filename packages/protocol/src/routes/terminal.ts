import * as t from '../schemas/terminal.js'
import { rpc } from './define.js'

const internal = { public: false } as const

/** Served for the people-facing clients, not advertised in the catalog. */
export const terminalRoutes = [
  rpc('Preview', 'terminal', "The visible text of a session's tab, its cursor and size", t.PreviewRequest, t.PreviewResponse, internal),
  rpc('PauseStatusPoll', 'terminal', 'Take or renew a 3 s lease: the observer skips the session and deferred prompts wait', t.StatusPollLeaseRequest, t.PauseStatusPollResponse, internal),
  rpc('ResumeStatusPoll', 'terminal', "End the holder's lease on the session", t.StatusPollLeaseRequest, t.ResumeStatusPollResponse, internal),
] as const
