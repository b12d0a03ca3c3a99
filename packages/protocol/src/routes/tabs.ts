import * as t from '../schemas/tabs.js'
import { rpc } from './define.js'

export const tabRoutes = [
  rpc('CreateTab', 'tabs', 'Open a shell, process, web or editor tab in a session', t.CreateTabRequest, t.CreateTabResponse),
  rpc('CloseTab', 'tabs', 'Close a non-agent tab (tab_id wins and never falls back)', t.CloseTabRequest, t.CloseTabResponse),
  rpc('RenameTab', 'tabs', 'Rename a web, process or editor tab; the name is sanitized and made unique', t.RenameTabRequest, t.RenameTabResponse, { required: ['new_name'] }),
  rpc('ReorderTab', 'tabs', 'Move a tab within slots 1 to n-1 (index 0 is the agent tab)', t.ReorderTabRequest, t.ReorderTabResponse, { required: ['new_index'] }),
] as const
