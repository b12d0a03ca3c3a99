import type { IncomingMessage, ServerResponse } from 'node:http'
import { serveStandIn, type ModelApi, type ModelStandIn, type StandInOptions } from './stand-in.js'

// The Anthropic Messages API as Claude Code (2.1.332) uses it: `POST /v1/messages?beta=true`
// with `stream: true`, answered as server-sent events. A turn's request carries the tools;
// Claude's side requests carry none (the session title, asked of a small model for a JSON
// object, is the one 2.1.332 makes; it sends the prompt too, inside <session> tags).

interface Block {
  type?: string
  text?: unknown
}

interface Message {
  role?: string
  content?: string | Block[]
}

interface MessagesBody {
  model?: string
  stream?: boolean
  tools?: unknown[]
  messages?: Message[]
  output_config?: { format?: { type?: string; schema?: JsonSchema } }
}

interface JsonSchema {
  properties?: Record<string, { type?: string }>
  required?: string[]
}

/** Context Claude adds to the user's message as blocks of their own. */
const REMINDER = /^\s*<system-reminder>[\s\S]*<\/system-reminder>\s*$/
/** A long paste goes to the model wrapped in these tags (the composer shows `[Pasted text #1 +N lines]`). */
const PASTED = /\n*<pasted_content id="[^"]*">\n([\s\S]*?)\n<\/pasted_content id="[^"]*">\n*/g

/**
 * The text of the last user message, without the blocks Claude adds: what the person
 * typed. (Claude also sends a `system` role message after the first user message.)
 */
function typedText(messages: Message[] = []): string {
  const last = messages.findLast((message) => message.role === 'user')
  const content = last?.content ?? ''
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content
  return blocks
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text !== '' && !REMINDER.test(text))
    .join('\n')
    .replace(PASTED, '$1')
}

/** The credential a request carried: an API key, an auth token or an account's OAuth access token. */
function credentialOf(request: IncomingMessage): string | undefined {
  const key = request.headers['x-api-key']
  if (typeof key === 'string') return key
  return request.headers.authorization?.replace(/^Bearer /, '')
}

/** A side request asking for structured output gets an object its schema accepts ({"title": …} for the title). */
function sideReply(body: MessagesBody): string {
  const format = body.output_config?.format
  if (format?.type !== 'json_schema') return 'Stand-in'
  const properties = format.schema?.properties ?? {}
  const values: Record<string, unknown> = {}
  for (const name of format.schema?.required ?? []) {
    const type = properties[name]?.type
    values[name] = type === 'string' ? 'Stand-in' : type === 'boolean' ? false : type === 'number' || type === 'integer' ? 0 : null
  }
  return JSON.stringify(values)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let messages = 0

/** The message an answer starts with, before its content. */
function messageOf(model: string | undefined) {
  return {
    id: `msg_standin_${++messages}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  }
}

/** One answer as the Messages API streams it. */
function events(message: ReturnType<typeof messageOf>, reply: string): [string, Record<string, unknown>][] {
  const words = reply.split(/(?<= )/)
  return [
    ['message_start', { message }],
    ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
    ['ping', {}],
    ...words.map((text): [string, Record<string, unknown>] => ['content_block_delta', { index: 0, delta: { type: 'text_delta', text } }]),
    ['content_block_stop', { index: 0 }],
    ['message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: words.length } }],
    ['message_stop', {}],
  ]
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(value))
}

const route = (request: IncomingMessage) => (request.method === 'POST' ? new URL(request.url ?? '/', 'http://stand-in').pathname : '')

const api: ModelApi = {
  read(request, body) {
    const messagesBody = (body ?? {}) as MessagesBody
    const path = request.url ?? ''
    const message = route(request) === '/v1/messages'
    return {
      record: { path, userText: message ? typedText(messagesBody.messages) : '', body, credential: credentialOf(request) },
      turn: message && (messagesBody.tools?.length ?? 0) > 0,
    }
  },
  async answer(request, body, response, options, turn) {
    const messagesBody = (body ?? {}) as MessagesBody
    const path = route(request)
    if (path === '/v1/messages/count_tokens') return sendJson(response, 200, { input_tokens: 100 })
    if (path !== '/v1/messages') {
      return sendJson(response, 404, { type: 'error', error: { type: 'not_found_error', message: `stand-in: no ${request.method} ${request.url}` } })
    }
    if (turn) await sleep(options.delayMs)
    const reply = turn ? options.reply : sideReply(messagesBody)
    const message = messageOf(messagesBody.model)
    if (!messagesBody.stream) {
      return sendJson(response, 200, {
        ...message,
        content: [{ type: 'text', text: reply }],
        stop_reason: 'end_turn',
        usage: { ...message.usage, output_tokens: reply.split(' ').length },
      })
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    for (const [type, data] of events(message, reply)) response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
    response.end()
  },
}

/** A stand-in for the Anthropic Messages API on loopback, as Claude Code uses it. */
export function serveAnthropic(options?: StandInOptions): Promise<ModelStandIn> {
  return serveStandIn(api, options)
}
