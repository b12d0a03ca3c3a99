import { Session } from 'node:inspector/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import type { Config } from '@svc/core'
import { quote } from '@svc/protocol'
import { HttpError } from '../http-error.js'
import { arrivedVia } from '../listeners.js'

const MAX_SECONDS = 60

function seconds(query: Record<string, unknown>, fallback: number): number {
  const given = query.seconds
  if (given === undefined) return fallback
  const value = Number(given)
  if (typeof given !== 'string' || !/^\d+$/.test(given) || value < 1 || value > MAX_SECONDS) {
    throw new HttpError(400, `seconds must be a whole number from 1 to ${MAX_SECONDS}`)
  }
  return value
}

/** Runs `work` with an inspector session on this process, closed afterwards. */
async function inspecting<T>(work: (session: Session) => Promise<T>): Promise<T> {
  const session = new Session()
  session.connect()
  try {
    return await work(session)
  } finally {
    session.disconnect()
  }
}

const profiles: Record<string, (query: Record<string, unknown>) => Promise<{ name: string; body: string }>> = {
  /** A `.cpuprofile` (Chrome DevTools) of the next N seconds. */
  cpu: (query) =>
    inspecting(async (session) => {
      const wait = seconds(query, 30)
      await session.post('Profiler.enable')
      await session.post('Profiler.start')
      await sleep(wait * 1000)
      const { profile } = await session.post('Profiler.stop')
      return { name: 'daemon.cpuprofile', body: JSON.stringify(profile) }
    }),
  /** A `.heapsnapshot` of the heap now. */
  heap: () =>
    inspecting(async (session) => {
      const chunks: string[] = []
      session.on('HeapProfiler.addHeapSnapshotChunk', (message) => chunks.push(message.params.chunk))
      await session.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false })
      return { name: 'daemon.heapsnapshot', body: chunks.join('') }
    }),
  /** A `.heapprofile` of the allocations sampled over N seconds. */
  'heap-sampling': (query) =>
    inspecting(async (session) => {
      const wait = seconds(query, 10)
      await session.post('HeapProfiler.startSampling')
      await sleep(wait * 1000)
      const { profile } = await session.post('HeapProfiler.stopSampling')
      return { name: 'daemon.heapprofile', body: JSON.stringify(profile) }
    }),
}

/**
 * `GET /v1/debug/pprof/{profile}`: off unless debug.profiling is true, and then served on
 * the Unix socket only. Otherwise it is the ordinary unknown route, so nothing tells a
 * caller it exists.
 */
export function pprofRoutes(config: Config) {
  return async (app: FastifyInstance) => {
    app.get('/v1/debug/pprof/:profile', async (request, reply) => {
      const { profile } = request.params as { profile: string }
      const take = Object.hasOwn(profiles, profile) ? profiles[profile] : undefined
      if (!config.get('debug.profiling') || arrivedVia(request.raw) !== undefined || take === undefined) {
        return reply.code(404).send({ data: null, error: { message: `unknown route ${quote(request.url.split('?')[0] ?? '')}`, daemon_rejected: true } })
      }
      const { name, body } = await take(request.query as Record<string, unknown>)
      return reply.type('application/json').header('content-disposition', `attachment; filename="${name}"`).send(body)
    })
  }
}
