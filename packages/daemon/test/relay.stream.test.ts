import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import websocket from '@fastify/websocket'
import Fastify, { type FastifyInstance } from 'fastify'
import WebSocket from 'ws'
import { NotFound, type Core, type RemoteLink } from '@svc/core'
import { createClient, DaemonError, type Client, type ServerFrame } from '@svc/protocol'
import {
  helloCursor,
  makePlace,
  makeRepo,
  paneText,
  placeLabel,
  record,
  remoteSession,
  startAgentServer,
  tempHomes,
  tmux,
  waitFor,
  type AgentServer,
  type Place,
  type RemoteSession,
} from '@svc/test-kit'
import { envelope } from '../src/plugins/envelope.js'
import { streamRoutes } from '../src/routes/stream.js'
import type { StreamHub } from '../src/stream/hub.js'

const homes = tempHomes()
let place: Place
let server: AgentServer
let workspace: string
let streamed: RemoteSession
/** The stream route alone, as the home daemon serves it, every session a remote one: the relay's frames, close codes and refusals without a hook record around it (hook.create.test.ts attaches through a whole home daemon). */
let home: FastifyInstance
let client: Client
let homeUrl: string
/** home id → where it runs */
const links = new Map<string, RemoteLink>()

const isType =
  <T extends ServerFrame['type']>(type: T) =>
  (frame: ServerFrame): frame is Extract<ServerFrame, { type: T }> =>
    frame.type === type

function link(homeId: string, remoteId: string, endpoint = server.url): RemoteLink {
  const made = { homeId, remoteId, endpoint, token: server.token }
  links.set(homeId, made)
  return made
}

beforeAll(async () => {
  place = await makePlace()
  workspace = await makeRepo(await homes.make())
  server = await startAgentServer({ place, home: await homes.make(), workspace })
  streamed = await remoteSession(server, 'streamed')
  link('home-streamed', streamed.id)

  home = Fastify()
  await home.register(envelope)
  await home.register(async (upgrading) => {
    await upgrading.register(websocket)
    const sourceFor = (session: string) => {
      const found = links.get(session)
      if (!found) throw new NotFound(`no session ${session}`)
      return found
    }
    // Neither is reached for a remote session.
    await upgrading.register(streamRoutes({} as Core, {} as StreamHub, sourceFor))
  })
  homeUrl = await home.listen({ host: '127.0.0.1', port: 0 })
  client = createClient({ url: homeUrl })
}, 90_000)
afterAll(async () => {
  await home?.close()
  await server?.stop()
  await place?.remove()
  await homes.release()
})

const remotePane = (session: RemoteSession) => paneText(server.options.home, session.tabs[0]?.tmux_name as string)

describe(`the terminal stream of a remote session, relayed, its remote ${placeLabel()}`, () => {
  it("starts with the remote's hello, size and repaint, carries keys and resizes both ways, and names the remote's cursor", async () => {
    const stream = await client.stream('home-streamed')
    const seen = record(stream)
    await seen.until(isType('repaint'))
    expect(seen.frames.slice(0, 3).map((frame) => frame.type)).toEqual(['hello', 'resize', 'repaint'])
    expect(helloCursor(seen)).toBe(stream.startCursor)
    expect(Buffer.from((seen.frames[2] as { data: Uint8Array }).data).toString()).toContain('fake-agent ready')

    stream.input('typed through the relay\r')
    await seen.shows('received: typed through the relay')
    const preview = await server.client.call('Preview', { id: streamed.id, title: 'streamed' })
    expect(preview.text).toContain('received: typed through the relay')

    stream.resize(30, 100)
    expect(await seen.until((frame) => frame.type === 'resize' && frame.rows === 30)).toEqual({ type: 'resize', rows: 30, cols: 100 })
    const pane = streamed.tabs[0]?.tmux_name as string
    await waitFor(() => tmux(server.options.home, 'display-message', '-p', '-t', `=${pane}:`, '#{window_height}x#{window_width}').trim() === '30x100' || undefined)
    stream.detach()
    expect(await stream.closed).toBe(1000)
  })

  it('replays from a cursor through the relay', async () => {
    const opened = await client.stream('home-streamed')
    const first = record(opened)
    await first.until(isType('hello'))
    const start = helloCursor(first)
    const typing = await client.stream('home-streamed')
    typing.input('replayed line\r')
    await first.shows('received: replayed line')
    const output = first.output()
    const resuming = await client.stream('home-streamed', { since: start + 5n })
    const resumed = record(resuming)
    expect(await resumed.until(isType('hello'))).toEqual({ type: 'hello', cursor: start + 5n })
    await waitFor(() => resumed.output().length >= output.length - 5 || undefined)
    expect(resumed.output().subarray(0, output.length - 5).equals(output.subarray(5))).toBe(true)
    expect(resumed.frames.some(isType('repaint'))).toBe(false)
    for (const stream of [opened, typing, resuming]) stream.close()
    await Promise.all([opened.closed, typing.closed, resuming.closed])
  })

  it("holds the remote session's lease while attached, and lets go when the client detaches or closes", async () => {
    for (const leave of ['detach', 'close'] as const) {
      const stream = await client.stream('home-streamed')
      await record(stream).until(isType('repaint'))
      const prompt = `deferred until ${leave}`
      const deliver = { title: 'streamed', repo_path: workspace, program: 'claude', prompt, defer_while_attached: true }
      expect(await server.client.call('DeliverPrompt', deliver)).toEqual({ status: 'sent', deferred: true })
      await new Promise((resolve) => setTimeout(resolve, 600))
      expect(remotePane(streamed)).not.toContain(`received: ${prompt}`)
      if (leave === 'detach') stream.detach()
      else stream.close()
      // The relay closed the remote's stream: its lease ended and the prompt went in.
      await waitFor(() => remotePane(streamed).includes(`received: ${prompt}`) || undefined, 15_000)
    }
  })

  it("relays the remote's close codes: a bad frame's 1003, and the exit frame then 1000 when the remote session ends", async () => {
    const raw = new WebSocket(`${homeUrl.replace('http', 'ws')}/v1/sessions/home-streamed/stream`)
    const closed = new Promise<number>((resolve) => raw.once('close', (code) => resolve(code)))
    await new Promise((resolve) => raw.once('open', resolve))
    raw.send(Buffer.from([0x09, 1, 2]))
    expect(await closed).toBe(1003)

    const ending = await remoteSession(server, 'ending')
    link('home-ending', ending.id)
    const stream = await client.stream('home-ending')
    const seen = record(stream)
    await seen.until(isType('repaint'))
    await server.client.call('KillSession', { id: ending.id, title: 'ending' })
    expect(await seen.until(isType('exit'))).toEqual({ type: 'exit', code: expect.any(Number) })
    expect(await stream.closed).toBe(1000)
  })

  it("answers the remote's refusal, or an unreachable remote, with an envelope before the upgrade", async () => {
    link('home-unknown', 'no-such-session')
    const unknown = await client.stream('home-unknown').catch((error: unknown) => error)
    expect(unknown).toBeInstanceOf(DaemonError)
    expect((unknown as DaemonError).status).toBe(404)
    expect((unknown as DaemonError).message).toContain('no-such-session')

    const badTab = await client.stream('home-streamed', { tab: 7 }).catch((error: unknown) => error)
    expect((badTab as DaemonError).status).toBe(404)

    // A port nothing listens on, at the remote's address.
    const closedPort = new URL(server.url)
    closedPort.port = String(server.port === 1 ? 2 : 1)
    link('home-nowhere', streamed.id, closedPort.origin)
    const nowhere = await client.stream('home-nowhere').catch((error: unknown) => error)
    expect((nowhere as DaemonError).status).toBe(500)
    expect((nowhere as DaemonError).message).toContain(`the remote ${closedPort.host} does not answer`)
    expect((nowhere as DaemonError).message).not.toContain(server.token)
  })

  // Last: it takes the remote down.
  it('closes the client 1001 when the remote goes away mid-stream', async () => {
    const stream = await client.stream('home-streamed')
    await record(stream).until(isType('repaint'))
    await server.stop('SIGKILL')
    expect(await stream.closed).toBe(1001)
  })
})
