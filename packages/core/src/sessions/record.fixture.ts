import { TabKind } from '@svc/protocol'
import { setState, type SessionRecord, type State } from './record.js'

/** A session with one agent tab (`svc_<title>`), in `state`, for unit tests. */
export const sessionRecord = (id: string, title: string, state: State): SessionRecord => {
  const made: SessionRecord = {
    id,
    title,
    repo_id: 'r',
    repo_path: '/repo',
    path: `/repo-${title}`,
    branch: title,
    branch_created: true,
    program: 'claude',
    account: '',
    backend: 'local',
    in_place: false,
    created_at: '2026-01-01T00:00:00.000Z',
    status: 0,
    tabs: [{ id: `${id}-agent`, kind: TabKind.agent, name: 'agent', tmux_name: `svc_${title}` }],
  }
  setState(made, state)
  return made
}
