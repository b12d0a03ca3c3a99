// The session rail's full update, timed in the browser: every session changed at once,
// rendered synchronously, for a fleet of 500 and a floor of 10. `pnpm bench` (suite
// `web`) builds this page, opens it in Chromium and reads `window.benchResult`.
import { EMPTY_FLEET, resynced } from '@svc/protocol/browser'
import { flushSync } from 'react-dom'
import { createRoot } from 'react-dom/client'
import type { Session } from '../src/api'
import { Rail } from '../src/components/Rail'
import '../src/style.css'

const UPDATES = 40
const STATES = ['running', 'ready', 'limit-reached', 'ready'] as const

function sampleFleet(count: number, update: number) {
  const sessions = Array.from({ length: count }, (_, i) => ({
    id: `s${i}`,
    title: `session-${i}`,
    repo_path: `/src/project-${i % 8}`,
    branch: `agent/session-${i}`,
    program: i % 3 === 0 ? 'codex' : 'claude',
    status_name: 'ready',
    liveness_name: STATES[(i + update) % STATES.length],
    idle_reason: (i + update) % 2 === 0 ? 'settled-after-pane-change' : undefined,
    created_at: new Date(Date.UTC(2026, 10, 24, 10, 0, i)).toISOString(),
    last_pane_churn_at: new Date(Date.now() - ((i * 7 + update) % 600) * 1000).toISOString(),
  })) as Session[]
  return resynced(EMPTY_FLEET, { sessions, tasks: [], projects: [], bootId: 'bench' })
}

function measure(count: number): number[] {
  const host = document.getElementById('root') as HTMLElement
  const root = createRoot(host)
  const times: number[] = []
  for (let update = 0; update < UPDATES; update++) {
    const fleet = sampleFleet(count, update)
    const started = performance.now()
    flushSync(() => root.render(<Rail fleet={fleet} />))
    times.push(performance.now() - started)
    if (host.querySelectorAll('[data-session-id]').length !== count) throw new Error(`rendered ${host.querySelectorAll('[data-session-id]').length} rows, not ${count}`)
  }
  root.unmount()
  return times.slice(5)
}

declare global {
  interface Window {
    benchResult?: { floor: number[]; full: number[] } | { error: string }
  }
}

try {
  measure(500)
  window.benchResult = { floor: measure(10), full: measure(500) }
} catch (error) {
  window.benchResult = { error: String(error) }
}
