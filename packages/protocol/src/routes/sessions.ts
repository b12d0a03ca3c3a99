import * as s from '../schemas/sessions.js'
import { rpc } from './define.js'

export const sessionRoutes = [
  rpc('CreateSession', 'sessions', 'Create a session: a git worktree and branch plus the agent in tmux; delivers an initial prompt', s.CreateSessionRequest, s.CreateSessionResponse, { required: ['repo_path'] }),
  rpc('ListBackends', 'sessions', 'Runtimes a session in this repository can be created on, and the default', s.ListBackendsRequest, s.ListBackendsResponse),
  rpc('ListPrograms', 'sessions', 'Agent programs a session can be created with, whether each is installed, and the default', s.ListProgramsRequest, s.ListProgramsResponse),
  rpc('SuggestSessionName', 'sessions', 'Suggest a readable adjective-noun name no session uses', s.SuggestSessionNameRequest, s.SuggestSessionNameResponse),
  rpc('Snapshot', 'sessions', 'List sessions from the daemon state, filtered by repo_id, live, statuses, created_after, limit', s.SnapshotRequest, s.SnapshotResponse),
  rpc('KillSession', 'sessions', 'Tear a session down: tmux sessions, worktree, the branch the daemon created, the record', s.KillSessionRequest, s.KillSessionResponse),
  rpc('ArchiveSession', 'sessions', 'Stop a session and move its worktree to the archive; the record is kept', s.ArchiveSessionRequest, s.ArchiveSessionResponse),
  rpc('RestoreArchived', 'sessions', 'Move an archived worktree back next to the repository and respawn the agent', s.RestoreArchivedRequest, s.RestoreArchivedResponse),
  rpc('RestoreSession', 'sessions', 'Restore an archived, lost or dead session (force_reap replaces a live runtime)', s.RestoreSessionRequest, s.RestoreSessionResponse),
  rpc('SendPrompt', 'sessions', 'Paste a prompt into the agent and report whether it arrived', s.SendPromptRequest, s.SendPromptResponse, { required: ['prompt'] }),
  rpc('ResumeFromLimit', 'sessions', 'Resume a session parked at a usage limit, or retry a handoff whose mission brief may not have arrived', s.ResumeFromLimitRequest, s.ResumeFromLimitResponse),
  rpc('HandoffSession', 'sessions', 'Continue a session in place under another agent and/or account; the new agent gets a mission brief', s.HandoffSessionRequest, s.HandoffSessionResponse),
  rpc('DeliverPrompt', 'sessions', 'Deliver a prompt to the titled session, creating it when it does not exist', s.DeliverPromptRequest, s.DeliverPromptResponse, {
    required: ['title', 'repo_path', 'prompt'],
  }),
] as const
