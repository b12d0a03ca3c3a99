import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EventRelay, type RelayedKind, type SessionWire } from '@svc/core'
import {
  makePlace,
  makeRepo,
  placeLabel,
  recordEvents,
  remoteSession,
  restartAgentServer,
  startAgentServer,
  tempHomes,
  waitFor,
  type AgentServer,
  type Place,
  type RemoteSession,
} from '@svc/test-kit'

const homes = tempHomes()
let place: Place
let server: AgentServer
let first: RemoteSession
let second: RemoteSession

interface Report {
  homeId: string
  row: SessionWire | undefined
  kind: RelayedKind
}

/** An EventRelay whose every report is kept, retrying fast. */
function recordingRelay(silenceMs = 40_000) {
  const sessions: Report[] = []
  const reachability: Array<{ endpoint: string; reachable: boolean; error?: Error }> = []
  const relay = new EventRelay(
    {
      onSession: (homeId, row, kind) => sessions.push({ homeId, row, kind }),
      onReachability: (endpoint, reachable, error) => reachability.push({ endpoint, reachable, ...(error ? { error } : {}) }),
    },
    { timings: { retryMs: 100, retryMaxMs: 400, silenceMs } },
  )
  const next = (accept: (report: Report) => boolean, from = 0, timeoutMs = 15_000) => waitFor(() => sessions.slice(from).find(accept), timeoutMs)
  return { relay, sessions, reachability, next }
}

beforeAll(async () => {
  place = await makePlace()
  const workspace = await makeRepo(await homes.make())
  server = await startAgentServer({ place, home: await homes.make(), workspace })
  first = await remoteSession(server, 'first')
  second = await remoteSession(server, 'second')
}, 90_000)
afterAll(async () => {
  await server?.stop()
  await place?.remove()
  await homes.release()
})

describe(`the event relay, its remote ${placeLabel()}`, () => {
  it("relays a watched session's frames under its home id through one feed per remote, and stops on unwatch", async () => {
    const { relay, sessions, reachability, next } = recordingRelay()
    try {
      relay.watch({ homeId: 'home-first', remoteId: first.id, endpoint: server.url, token: server.token })
      relay.watch({ homeId: 'home-second', remoteId: second.id, endpoint: server.url, token: server.token })
      // Both sessions share the remote's one feed.
      expect(relay.size).toBe(1)
      await waitFor(() => reachability.length > 0)
      expect(reachability).toEqual([{ endpoint: server.url, reachable: true }])
      // The first connection reads the watched rows.
      const read = await next((report) => report.homeId === 'home-first' && report.kind === 'snapshot')
      expect(read.row?.id).toBe(first.id)
      expect(read.row?.title).toBe('first')

      const mark = sessions.length
      await server.client.call('SendPrompt', { id: first.id, title: 'first', prompt: 'relay me' })
      const updated = await next((report) => report.homeId === 'home-first' && report.kind === 'session.updated', mark)
      expect(updated.row?.id).toBe(first.id)
      // Each session's frames under its own home id, never another's.
      const remoteOf: Record<string, string> = { 'home-first': first.id, 'home-second': second.id }
      expect(sessions.filter((report) => report.row !== undefined && report.row.id !== remoteOf[report.homeId])).toEqual([])

      relay.unwatch('home-first')
      const direct = await recordEvents(server.client)
      const unwatched = sessions.length
      await server.client.call('SendPrompt', { id: first.id, title: 'first', prompt: 'not relayed' })
      await direct.next('session.updated', (frame) => frame.data.id === first.id)
      // The other session on the same remote is still relayed, after the first's frames.
      await server.client.call('SendPrompt', { id: second.id, title: 'second', prompt: 'still relayed' })
      await direct.next('session.updated', (frame) => frame.data.id === second.id)
      await next((report) => report.homeId === 'home-second' && report.kind === 'session.updated', unwatched)
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(sessions.slice(unwatched).filter((report) => report.homeId === 'home-first')).toEqual([])
      direct.close()

      // The last session of a remote closes its feed.
      relay.unwatch('home-second')
      expect(relay.size).toBe(0)
    } finally {
      relay.close()
    }
  }, 60_000)

  it('reports a killed remote unreachable, and reachable again once restarted on its home and port, re-reading the rows', async () => {
    const { relay, sessions, reachability, next } = recordingRelay()
    try {
      relay.watch({ homeId: 'home-first', remoteId: first.id, endpoint: server.url, token: server.token })
      await waitFor(() => reachability.length === 1)
      await next((report) => report.kind === 'snapshot')

      await server.stop('SIGKILL')
      await waitFor(() => reachability.length === 2)
      expect(reachability[1]).toMatchObject({ endpoint: server.url, reachable: false })
      expect(reachability[1]?.error?.message).toContain(new URL(server.url).host)
      expect(reachability[1]?.error?.message).not.toContain(server.token)
      // Retried, but told once.
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      expect(reachability).toHaveLength(2)

      const mark = sessions.length
      server = await restartAgentServer(server)
      await waitFor(() => reachability.length === 3, 20_000)
      expect(reachability[2]).toEqual({ endpoint: server.url, reachable: true })
      // Back with the session as the remote kept it: read again, not restored.
      const read = await next((report) => report.kind === 'snapshot', mark)
      expect([read.homeId, read.row?.id, read.row?.tabs[0]?.tmux_name]).toEqual(['home-first', first.id, first.tabs[0]?.tmux_name])
      expect(['ready', 'running']).toContain(read.row?.liveness_name)

      // Frames flow again on the new connection.
      const after = sessions.length
      await server.client.call('SendPrompt', { id: first.id, title: 'first', prompt: 'after the restart' })
      await next((report) => report.homeId === 'home-first' && report.kind === 'session.updated', after)
    } finally {
      relay.close()
    }
  }, 90_000)

  it('takes a remote that stops answering without closing for unreachable, and back once it answers', async () => {
    // Shorter than the remote's ping interval: a quiet feed is dropped and connects again at once, which is not news.
    const { relay, reachability, next } = recordingRelay(2_000)
    try {
      relay.watch({ homeId: 'home-first', remoteId: first.id, endpoint: server.url, token: server.token })
      await next((report) => report.kind === 'snapshot')
      server.process.kill('SIGSTOP')
      try {
        // Its kernel still accepts connections; nothing answers on them.
        await waitFor(() => reachability.length === 2, 15_000)
        expect(reachability[1]).toMatchObject({ endpoint: server.url, reachable: false })
      } finally {
        server.process.kill('SIGCONT')
      }
      await waitFor(() => reachability.length === 3, 15_000)
      expect(reachability[2]).toEqual({ endpoint: server.url, reachable: true })
    } finally {
      relay.close()
    }
  }, 60_000)

  it('reads a session watched on a connected feed at once, and relays its kill', async () => {
    const { relay, sessions, next } = recordingRelay()
    try {
      relay.watch({ homeId: 'home-first', remoteId: first.id, endpoint: server.url, token: server.token })
      await next((report) => report.homeId === 'home-first' && report.kind === 'snapshot')
      const gone = await remoteSession(server, 'gone')
      relay.watch({ homeId: 'home-gone', remoteId: gone.id, endpoint: server.url, token: server.token })
      expect((await next((report) => report.homeId === 'home-gone' && report.kind === 'snapshot')).row?.id).toBe(gone.id)
      const mark = sessions.length
      await server.client.call('KillSession', { id: gone.id, title: 'gone' })
      expect(await next((report) => report.homeId === 'home-gone' && report.kind === 'session.killed', mark)).toEqual({
        homeId: 'home-gone',
        row: undefined,
        kind: 'session.killed',
      })
    } finally {
      relay.close()
    }
  }, 60_000)
})
