import * as s from '../schemas/sessions.js'
import { rpc } from './define.js'

export const sessionRoutes = [
  rpc(
    'SuggestSessionName',
    'sessions',
    'Suggest a readable adjective-noun name no live session uses',
    s.SuggestSessionNameRequest,
    s.SuggestSessionNameResponse,
  ),
  rpc(
    'Snapshot',
    'sessions',
    'List sessions from the daemon state, filtered by repo_id, live, statuses, created_after, limit',
    s.SnapshotRequest,
    s.SnapshotResponse,
  ),
] as const
