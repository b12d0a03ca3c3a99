import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { EventRelay, type RelayedKind } from '@svc/core'
import { waitFor } from '@svc/test-kit'

// A real daemon sends every subscriber every frame or closes it, so a seq gap cannot be made
// to happen there: a scripted feed stands in for the remote, frames and Snapshot alike.
let server: Server | undefined
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())))

it('re-reads Snapshot after a gap in the remote feed’s seq, and relays only watched sessions', async () => {
  let reads = 0
  server = createServer((request, response) => {
    if (request.url !== '/v1/Snapshot' || request.headers.authorization !== 'Bearer secret') return void response.writeHead(404).end()
    reads += 1
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { instances: [{ id: 'r1', title: `read-${reads}` }] }, error: null }))
  })
  const feed = new WebSocketServer({ server, path: '/v1/events' })
  feed.on('connection', (socket, request) => {
    if (request.headers.authorization !== 'Bearer secret') return socket.close(1008)
    const frames = [
      { type: 'hello', data: { boot_id: 'b', seq: 10 } },
      { type: 'session.updated', seq: 11, data: { id: 'r1', title: 'at-11' } },
      { type: 'session.updated', seq: 12, data: { id: 'unwatched', title: 'at-12' } },
      // 13 and 14 never arrive.
      { type: 'session.attention', seq: 15, data: { id: 'r1', title: 'at-15', repo_id: 'x', reason: 'settled' } },
    ]
    for (const frame of frames) socket.send(JSON.stringify(frame))
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const reports: Array<[string, string | undefined, RelayedKind, string | undefined]> = []
  const relay = new EventRelay({
    onSession: (homeId, row, kind, reason) => reports.push([homeId, row?.title, kind, reason]),
    onReachability: () => {},
  })
  try {
    relay.watch({ homeId: 'h1', remoteId: 'r1', endpoint, token: 'secret' })
    await waitFor(() => reports.length >= 4)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(reports).toEqual([
      ['h1', 'read-1', 'snapshot', undefined],
      ['h1', 'at-11', 'session.updated', undefined],
      ['h1', undefined, 'session.attention', 'settled'],
      ['h1', 'read-2', 'snapshot', undefined],
    ])
  } finally {
    relay.close()
    feed.close()
  }
})
