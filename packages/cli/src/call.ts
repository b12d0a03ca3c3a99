import { setTimeout as sleep } from 'node:timers/promises'
import { DaemonError, type RequestOf, type ResponseOf, type RouteName, type ServicePaths } from '@svc/protocol'
import { connect } from './daemon-process.js'

const WARMUP_WAIT_MS = 60_000

/**
 * One call through the typed client to a daemon started on demand. A daemon still
 * restoring its state answers a retryable 503, so that is waited out.
 */
export async function callDaemon<N extends RouteName>(
  paths: ServicePaths,
  name: N,
  body?: RequestOf<N>,
): Promise<ResponseOf<N>> {
  const client = await connect(paths)
  const deadline = Date.now() + WARMUP_WAIT_MS
  for (;;) {
    try {
      return await client.call(name, body)
    } catch (error) {
      const warming = error instanceof DaemonError && error.status === 503 && error.daemonRejected
      if (!warming || Date.now() > deadline) throw error
      await sleep(200)
    }
  }
}
