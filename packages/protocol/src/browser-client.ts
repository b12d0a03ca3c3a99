import { DaemonError } from './client-errors.js'
import { CONFIG_ASSISTANT_PATH, type ConfigAssistantAnswer } from './config-assistant.js'
import { EVENTS_PATH, type FeedFrame } from './events.js'
import { decodeEnvelope, decodeReply } from './reply.js'
import { routeNamed, type RequestOf, type ResponseOf, type RouteName } from './routes/index.js'
import { decodeServerFrame, encodeClientFrame, type ServerFrame } from './stream-frames.js'
import { PREVIEW_AUTH_PATH, previewAuthPath, type PreviewAuthAnswer } from './webtab.js'

/** Whether the event feed is connected; `reconnecting` after a drop until the next hello. */
export type FeedState = 'connecting' | 'live' | 'reconnecting'

export interface FeedHandlers {
  frame(frame: FeedFrame): void
  state?(state: FeedState): void
}

export interface BrowserTerminal {
  input(data: string | Uint8Array): void
  resize(rows: number, cols: number): void
  close(): void
}

export interface TerminalHandlers {
  frame(frame: ServerFrame): void
  /** The socket closed (the tab ended, the daemon went away, or `close()`). */
  closed(code: number): void
}

/** The daemon's API from a page it served: same origin, the login cookie as credential. */
export interface BrowserClient {
  call<N extends RouteName>(name: N, body?: RequestOf<N>): Promise<ResponseOf<N>>
  /** Follows the event feed until the returned function is called, reconnecting after drops. */
  events(handlers: FeedHandlers): () => void
  /** A terminal plane at `path` (`streamPath`, `loginStreamPath`). */
  stream(path: string, handlers: TerminalHandlers): BrowserTerminal
  /** A web tab's preview origin, `""` when the preview listener is off or the tab has none; a refusal throws DaemonError. */
  previewOrigin(session: string, tab: string): Promise<string>
  /** The config assistant: `open` spawns or reuses it (its terminal is `configAssistantStreamPath`), `reap` ends it. */
  configAssistant: {
    open(): Promise<ConfigAssistantAnswer>
    reap(): Promise<{ ok: true }>
  }
}

const RETRY_FIRST_MS = 250
const RETRY_MAX_MS = 5_000

function socketUrl(base: URL, path: string): string {
  const url = new URL(path, base)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  return url.href
}

/** `base`: the page's own URL, whose origin serves the API. */
export function createBrowserClient(base: URL): BrowserClient {
  async function call<N extends RouteName>(name: N, body?: RequestOf<N>): Promise<ResponseOf<N>> {
    const route = routeNamed(name)
    const init: RequestInit = { method: route.method, credentials: 'same-origin' }
    if (route.method === 'POST') {
      init.headers = { 'content-type': 'application/json' }
      init.body = JSON.stringify(body ?? {})
    }
    let response: Response
    try {
      response = await fetch(new URL(route.path, base), init)
    } catch (error) {
      throw new DaemonError(0, { message: `cannot reach the daemon: ${(error as Error).message}` }, name)
    }
    return decodeReply(name, response.status, await response.text())
  }

  function events(handlers: FeedHandlers): () => void {
    let stopped = false
    let socket: WebSocket | undefined
    let delay = RETRY_FIRST_MS
    let timer: ReturnType<typeof setTimeout> | undefined
    const connect = (state: FeedState) => {
      handlers.state?.(state)
      socket = new WebSocket(socketUrl(base, EVENTS_PATH))
      socket.onmessage = (message) => {
        const frame = JSON.parse(message.data as string) as FeedFrame
        if (frame.type === 'hello') {
          delay = RETRY_FIRST_MS
          handlers.state?.('live')
        }
        handlers.frame(frame)
      }
      // A browser does not say why an upgrade failed (a restart, a 503 while warming up): retry.
      socket.onclose = () => {
        if (stopped) return
        handlers.state?.('reconnecting')
        timer = setTimeout(() => connect('reconnecting'), delay)
        delay = Math.min(delay * 2, RETRY_MAX_MS)
      }
    }
    connect('connecting')
    return () => {
      stopped = true
      clearTimeout(timer)
      socket?.close()
    }
  }

  function stream(path: string, handlers: TerminalHandlers): BrowserTerminal {
    const socket = new WebSocket(socketUrl(base, path))
    socket.binaryType = 'arraybuffer'
    socket.onmessage = (message) => {
      const data = message.data as ArrayBuffer | string
      handlers.frame(decodeServerFrame(typeof data === 'string' ? data : new Uint8Array(data)))
    }
    socket.onclose = (event) => handlers.closed(event.code)
    // Keys and the size given before the socket opens are sent when it does.
    const waiting: Array<string | Uint8Array> = []
    socket.onopen = () => waiting.splice(0).forEach((frame) => socket.send(frame))
    const send = (frame: Parameters<typeof encodeClientFrame>[0]) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(encodeClientFrame(frame))
      else if (socket.readyState === WebSocket.CONNECTING) waiting.push(encodeClientFrame(frame))
    }
    return {
      input: (data) => send({ type: 'input', data: typeof data === 'string' ? new TextEncoder().encode(data) : data }),
      resize: (rows, cols) => send({ type: 'resize', rows, cols }),
      close: () => socket.close(),
    }
  }

  async function previewOrigin(session: string, tab: string): Promise<string> {
    const response = await fetch(new URL(previewAuthPath(session, tab), base), { credentials: 'same-origin' })
    return decodeEnvelope<PreviewAuthAnswer>(PREVIEW_AUTH_PATH, response.status, await response.text()).origin
  }

  async function assistant<T>(method: 'POST' | 'DELETE'): Promise<T> {
    const init: RequestInit = { method, credentials: 'same-origin' }
    if (method === 'POST') Object.assign(init, { headers: { 'content-type': 'application/json' }, body: '{}' })
    const response = await fetch(new URL(CONFIG_ASSISTANT_PATH, base), init)
    return decodeEnvelope<T>('config-assistant', response.status, await response.text())
  }

  const configAssistant = {
    open: () => assistant<ConfigAssistantAnswer>('POST'),
    reap: () => assistant<{ ok: true }>('DELETE'),
  }

  return { call, events, stream, previewOrigin, configAssistant }
}
