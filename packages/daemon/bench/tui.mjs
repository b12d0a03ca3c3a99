// The terminal UI: the time one full update takes to render (every session changed:
// grouping, layout, the frame written) with 500 sessions, against the same update with
// 10 sessions measured in the same run. Target: under 30 ms at 500.
import { performance } from 'node:perf_hooks'
import { fmt, percentile, report, ROUNDS } from './harness.mjs'

const SESSIONS = 500
const FLOOR_SESSIONS = 10
const UPDATES = 60
/** A roomy terminal, so the list shows as many rows as people see. */
const SIZE = { width: 160, height: 50 }

/** Milliseconds per full update of a fleet of `count`: each update a new fleet, every pane age moved. */
function measure(renderer, sampleSessions, count, times) {
  for (let update = 0; update < UPDATES; update++) {
    const fleet = sampleSessions(count, Date.now() + update * 1_000)
    const started = performance.now()
    const frame = renderer.update(fleet)
    times.push(performance.now() - started)
    if (!frame.includes(`${count} sessions`)) throw new Error(`the frame does not show the ${count} sessions:\n${frame}`)
  }
}

export async function run() {
  // As `svc ui` runs it: React's production build (imported here, after the choice is made).
  process.env.NODE_ENV ??= 'production'
  const { sampleSessions, screenRenderer } = await import('@svc/tui')
  const renderer = screenRenderer(SIZE)
  const times = { floor: [], full: [] }
  try {
    // Warm-up: the first renders compile the layout code.
    measure(renderer, sampleSessions, SESSIONS, [])
    for (let round = 0; round < ROUNDS; round++) {
      measure(renderer, sampleSessions, FLOOR_SESSIONS, times.floor)
      measure(renderer, sampleSessions, SESSIONS, times.full)
    }
  } finally {
    renderer.close()
  }
  const floor = times.floor.sort((a, b) => a - b)
  const full = times.full.sort((a, b) => a - b)
  report(`terminal UI: one full update rendered at ${SIZE.width}x${SIZE.height}, ${UPDATES * ROUNDS} updates`, [
    [`floor: ${FLOOR_SESSIONS} sessions`, fmt.spread(floor)],
    [`svc: ${SESSIONS} sessions`, fmt.spread(full)],
    [`p50 at ${SESSIONS} / floor p50`, fmt.ratio(percentile(full, 50) / percentile(floor, 50), 'the p50 under 30 ms')],
  ])
}
