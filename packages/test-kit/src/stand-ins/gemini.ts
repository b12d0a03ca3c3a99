import type { IncomingMessage, ServerResponse } from 'node:http'
import { serveStandIn, type ModelApi, type ModelStandIn, type StandInOptions } from './stand-in.js'

// The Gemini API as Gemini CLI (0.61) uses it through @google/genai with
// GOOGLE_GEMINI_BASE_URL: a turn is `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`
// answered as server-sent events. Before each turn it routes the prompt with a
// `:generateContent` to a small model asking for JSON (responseJsonSchema); loop detection
// and the next-speaker check ask the same way. Those are side requests.

interface Schema {
  type?: string
  properties?: Record<string, Schema>
  enum?: unknown[]
}

interface GenerateBody {
  contents?: { role?: string; parts?: { text?: string; thought?: boolean }[] }[]
  generationConfig?: { responseJsonSchema?: Schema; responseSchema?: Schema }
}

/** Parts Gemini CLI adds to a user message itself (it skips the same ones when it resumes a session). */
const INJECTED = ['<session_context>', '<hook_context>']

/** The text of the last user message, without the context Gemini CLI added: what the person typed. */
function typedText(body: GenerateBody): string {
  const last = (body.contents ?? []).filter((content) => content.role === 'user').at(-1)
  return (last?.parts ?? [])
    .filter((part) => typeof part.text === 'string' && !part.thought && !INJECTED.some((tag) => part.text?.trimStart().startsWith(tag)))
    .map((part) => part.text)
    .join('\n')
}

/**
 * A value `schema` accepts, for the side requests' JSON. The first enum value and the
 * lowest numbers keep Gemini CLI quiet: next speaker "user", routing complexity 1 (its
 * minimum), loop confidence 0.
 */
function sample(schema: Schema): unknown {
  if (schema.enum?.length) return schema.enum[0]
  switch (schema.type?.toLowerCase()) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, sample(property)]))
    case 'array':
      return []
    case 'integer':
      return 1
    case 'number':
      return 0
    case 'boolean':
      return false
    default:
      return 'stand-in'
  }
}

/** `models/<model>:<method>` of a request path, or undefined for anything else. */
function methodOf(path: string): { model: string; method: string } | undefined {
  const match = /\/models\/([^/:?]+):([A-Za-z]+)/.exec(path)
  return match ? { model: match[1] as string, method: match[2] as string } : undefined
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One chunk of a GenerateContentResponse; the last carries the finish reason and usage. */
function chunk(model: string, text: string, last: boolean, tokens: number): string {
  const candidate = { content: { role: 'model', parts: [{ text }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }
  const usage = { promptTokenCount: 100, candidatesTokenCount: tokens, totalTokenCount: 100 + tokens }
  return JSON.stringify({ candidates: [candidate], usageMetadata: usage, modelVersion: model })
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(value))
}

const api: ModelApi = {
  read(request, body) {
    const path = request.url ?? ''
    const generate = (body ?? {}) as GenerateBody
    const call = methodOf(path)
    const userText = call?.method.endsWith('enerateContent') ? typedText(generate) : ''
    const structured = generate.generationConfig?.responseJsonSchema ?? generate.generationConfig?.responseSchema
    return {
      record: { path, userText, body },
      // A stream that only returns tool results has no typed text: not a turn.
      turn: call?.method === 'streamGenerateContent' && structured === undefined && userText !== '',
    }
  },
  async answer(request: IncomingMessage, body, response, options, turn) {
    const call = methodOf(request.url ?? '')
    if (request.method !== 'POST' || !call) {
      json(response, 404, { error: { code: 404, message: `stand-in: no ${request.method} ${request.url}`, status: 'NOT_FOUND' } })
      return
    }
    const generate = (body ?? {}) as GenerateBody
    if (call.method === 'countTokens') {
      json(response, 200, { totalTokens: Math.ceil(JSON.stringify(generate.contents ?? []).length / 4) })
      return
    }
    const schema = generate.generationConfig?.responseJsonSchema ?? generate.generationConfig?.responseSchema
    const reply = schema ? JSON.stringify(sample(schema)) : turn ? options.reply : 'stand-in'
    if (turn) await sleep(options.delayMs)
    if (call.method !== 'streamGenerateContent') {
      json(response, 200, JSON.parse(chunk(call.model, reply, true, reply.length)))
      return
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const words = reply.split(/(?<= )/)
    words.forEach((word, i) => response.write(`data: ${chunk(call.model, word, i === words.length - 1, i + 1)}\r\n\r\n`))
    response.end()
  },
}

/** A stand-in for the Gemini API on loopback, as Gemini CLI uses it. */
export function serveGemini(options?: StandInOptions): Promise<ModelStandIn> {
  return serveStandIn(api, options)
}
