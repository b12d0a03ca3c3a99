import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What a model API stand-in was asked: the ground truth of what reached the agent's model. */
export interface ModelRequest {
  path: string
  /** The text of the conversation's last user turn, as the agent sent it. */
  userText: string
  body: unknown
  /** The API key or bearer token the request carried, where the API has one: which account asked. */
  credential?: string
}

export interface StandInOptions {
  /** What the model answers every turn. */
  reply?: string
  /** How long the model takes before it answers, so a test can see the agent busy. */
  delayMs?: number
}

export interface ModelStandIn {
  /** `http://127.0.0.1:<port>`: loopback only. */
  url: string
  /** Every turn's request, in arrival order (side requests an agent makes on its own are in `other`). */
  readonly turns: ModelRequest[]
  /** Requests the stand-in answered that are not turns (title generation, token counts, ...). */
  readonly other: ModelRequest[]
  /** The reply and delay now in force: a test may change them between turns. */
  settings: Required<StandInOptions>
  /** How many turns' user text contains `text`. */
  received(text: string): number
  close(): Promise<void>
}

/** One model API: reads what a request asks, and answers it. */
export interface ModelApi {
  /**
   * The request as recorded (at arrival, before any answer); `turn: true` when it is a
   * turn of the conversation the user drives, not a side request the agent makes on its own.
   */
  read(request: IncomingMessage, body: unknown): { record: ModelRequest; turn: boolean }
  /** Answers it (streamed as the real API streams), after `options.delayMs` for a turn. */
  answer(request: IncomingMessage, body: unknown, response: ServerResponse, options: Required<StandInOptions>, turn: boolean): Promise<void>
}

export const DEFAULT_REPLY = 'stand-in reply: done'

/** Serves `api` on a loopback port and records what it is asked. */
export async function serveStandIn(api: ModelApi, options: StandInOptions = {}): Promise<ModelStandIn> {
  const settings = { reply: options.reply ?? DEFAULT_REPLY, delayMs: options.delayMs ?? 0 }
  const turns: ModelRequest[] = []
  const other: ModelRequest[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      let body: unknown
      try {
        body = text === '' ? undefined : JSON.parse(text)
      } catch {
        body = text
      }
      let turn = false
      try {
        const read = api.read(request, body)
        turn = read.turn
        ;(turn ? turns : other).push(read.record)
      } catch {
        other.push({ path: request.url ?? '', userText: '', body })
      }
      api.answer(request, body, response, settings, turn).catch(
        (error: Error) => {
          if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' })
          response.end(JSON.stringify({ error: { message: error.message } }))
        },
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    turns,
    other,
    settings,
    received: (text) => turns.filter((turn) => turn.userText.includes(text)).length,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
