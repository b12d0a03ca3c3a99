import type { IncomingMessage, ServerResponse } from 'node:http'
import { serveStandIn, type ModelApi, type ModelStandIn, type StandInOptions } from './stand-in.js'

// The OpenAI Responses API as Codex (0.171) streams it: `POST /v1/responses` with
// `stream: true`, answered as server-sent events. Codex renders the reply from
// response.output_item.done and ends the turn on response.completed (without it, it
// reconnects five times and reports "stream closed before response.completed"); the
// other events make the stream look like the real one.

interface ResponsesBody {
  model?: string
  input?: unknown
  text?: { format?: unknown }
}

interface InputItem {
  type?: string
  role?: string
  content?: unknown
}

/** Context Codex sends as user messages itself: `<environment_context>…</environment_context>` and the like, and AGENTS.md. */
const INJECTED = [/^\s*<([a-z_]+)>[\s\S]*<\/\1>\s*$/, /^# AGENTS\.md instructions for /]

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((part: { type?: string; text?: unknown }) => (part.type === 'input_text' && typeof part.text === 'string' ? part.text : ''))
    .join('')
}

/** The text of the last user message that is not context Codex added: what the person typed. */
function typedText(input: unknown): string {
  const items = Array.isArray(input) ? (input as InputItem[]) : []
  for (const item of [...items].reverse()) {
    if ((item.type ?? 'message') !== 'message' || item.role !== 'user') continue
    const text = textOf(item.content)
    if (!INJECTED.some((pattern) => pattern.test(text))) return text
  }
  return typeof input === 'string' ? input : ''
}

/**
 * Whether a request is a turn of the conversation: Codex labels each request's origin in
 * its x-codex-turn-metadata header (`thread_source` "user" for a turn, "thread_title" for
 * the title it asks for after the first prompt). Without that header (older versions), a
 * side request is the one asking for structured output.
 */
function isTurn(request: IncomingMessage, body: ResponsesBody): boolean {
  const header = request.headers['x-codex-turn-metadata']
  if (typeof header === 'string') {
    try {
      const source = (JSON.parse(header) as { thread_source?: unknown }).thread_source
      if (typeof source === 'string') return source === 'user'
    } catch {
      // Not JSON: judge by the body below.
    }
  }
  return body.text?.format === undefined
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let responses = 0

/** One answer as the Responses API streams it. */
function events(model: string | undefined, reply: string): [string, Record<string, unknown>][] {
  const n = ++responses
  const base = { id: `resp_standin_${n}`, object: 'response', created_at: Math.floor(Date.now() / 1000), model, output: [] }
  const message = { id: `msg_standin_${n}`, type: 'message', role: 'assistant' }
  const done = { ...message, status: 'completed', content: [{ type: 'output_text', text: reply, annotations: [] }] }
  const words = reply.split(/(?<= )/)
  return [
    ['response.created', { response: { ...base, status: 'in_progress' } }],
    ['response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } }],
    ...words.map((delta): [string, Record<string, unknown>] => [
      'response.output_text.delta',
      { item_id: message.id, output_index: 0, content_index: 0, delta },
    ]),
    ['response.output_item.done', { output_index: 0, item: done }],
    [
      'response.completed',
      {
        response: {
          ...base,
          status: 'completed',
          output: [done],
          usage: {
            input_tokens: 100,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: words.length,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 100 + words.length,
          },
        },
      },
    ],
  ]
}

/** Side requests (the thread title) want JSON matching their schema; a short title fits Codex's. */
const SIDE_REPLY = JSON.stringify({ title: 'Stand-in task' })

const api: ModelApi = {
  read(request, body) {
    const responsesBody = (body ?? {}) as ResponsesBody
    const path = request.url ?? ''
    const post = request.method === 'POST' && path.startsWith('/v1/responses')
    return {
      record: {
        path,
        userText: post ? typedText(responsesBody.input) : '',
        body,
        credential: request.headers.authorization?.replace(/^Bearer /, ''),
      },
      turn: post && isTurn(request, responsesBody),
    }
  },
  async answer(request, body, response: ServerResponse, options, turn) {
    if (request.method !== 'POST' || !(request.url ?? '').startsWith('/v1/responses')) {
      response.writeHead(404, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { message: `stand-in: no ${request.method} ${request.url}`, type: 'invalid_request_error' } }))
      return
    }
    if (turn) await sleep(options.delayMs)
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    for (const [type, data] of events((body as ResponsesBody | undefined)?.model, turn ? options.reply : SIDE_REPLY)) {
      response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
    }
    response.end()
  },
}

/** A stand-in for the OpenAI Responses API on loopback, as Codex uses it. */
export function serveOpenAIResponses(options?: StandInOptions): Promise<ModelStandIn> {
  return serveStandIn(api, options)
}
