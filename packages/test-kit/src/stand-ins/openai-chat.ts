import type { ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { serveStandIn, type ModelApi, type ModelStandIn, type StandInOptions } from './stand-in.js'

// The OpenAI Chat Completions API as opencode (1.18.33) uses it through
// @ai-sdk/openai-compatible: `POST /v1/chat/completions` with `stream: true`, answered as
// server-sent events ending in `data: [DONE]`. A turn of its agent loop carries the tools;
// its side request (the session title, asked right after the first prompt) carries none.

interface Part {
  type?: string
  text?: unknown
}

interface Message {
  role?: string
  content?: string | Part[] | null
}

interface ChatBody {
  model?: string
  tools?: unknown[]
  messages?: Message[]
}

const textOf = (content: Message['content']): string =>
  typeof content === 'string' ? content : (content ?? []).map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('\n')

/**
 * The text of the user messages that end the conversation (a prompt queued behind a turn
 * follows it): what the person typed. None when a tool result ends it.
 */
function typedText(messages: Message[] = []): string {
  const from = messages.findLastIndex((message) => message.role !== 'user') + 1
  return messages.slice(from).map((message) => textOf(message.content)).join('\n')
}

/** What the title request gets: a short title, so that the model's reply on screen is the turn's alone. */
const SIDE_REPLY = 'Stand-in task'

let completions = 0

/** One answer as the API streams it: the role, the reply a word at a time, the finish reason with usage. */
function chunks(model: string | undefined, reply: string): Record<string, unknown>[] {
  const base = { id: `chatcmpl-standin-${++completions}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model }
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })
  const words = reply.split(/(?<= )/)
  const usage = { prompt_tokens: 100, completion_tokens: words.length, total_tokens: 100 + words.length }
  return [choice({ role: 'assistant', content: '' }), ...words.map((content) => choice({ content })), { ...choice({}, 'stop'), usage }]
}

const isCompletion = (method: string | undefined, path: string) => method === 'POST' && path.startsWith('/v1/chat/completions')

const api: ModelApi = {
  read(request, body) {
    const chat = (body ?? {}) as ChatBody
    const path = request.url ?? ''
    const userText = isCompletion(request.method, path) ? typedText(chat.messages) : ''
    return {
      record: { path, userText, body, credential: request.headers.authorization?.replace(/^Bearer /, '') },
      turn: userText !== '' && (chat.tools?.length ?? 0) > 0,
    }
  },
  async answer(request, body, response: ServerResponse, options, turn) {
    if (!isCompletion(request.method, request.url ?? '')) {
      response.writeHead(404, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { message: `stand-in: no ${request.method} ${request.url}`, type: 'invalid_request_error' } }))
      return
    }
    if (turn) await sleep(options.delayMs)
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    for (const chunk of chunks((body as ChatBody | undefined)?.model, turn ? options.reply : SIDE_REPLY)) {
      response.write(`data: ${JSON.stringify(chunk)}\n\n`)
    }
    response.end('data: [DONE]\n\n')
  },
}

/** A stand-in for the OpenAI Chat Completions API on loopback, as opencode uses it. */
export function serveOpenAIChat(options?: StandInOptions): Promise<ModelStandIn> {
  return serveStandIn(api, options)
}
