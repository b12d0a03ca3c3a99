import { chmod, unlink } from 'node:fs/promises'
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { Logger } from 'pino'
import { formatListenAddress, isLoopbackHost, parseListenAddress } from '@svc/core'
import { answerClientError } from './client-error.js'

/** Node's `upgrade` handler: each listener hands its WebSocket upgrades to the app's. */
export type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void

/** What a TCP request carries about the listener it arrived on. */
export interface TcpArrival {
  loopbackBind: boolean
}

const ARRIVAL = Symbol('svc.arrival')
type Tagged = IncomingMessage & { [ARRIVAL]?: TcpArrival }

/** The TCP listener a request came through, or undefined for the Unix socket. */
export function arrivedVia(request: IncomingMessage): TcpArrival | undefined {
  return (request as Tagged)[ARRIVAL]
}

export interface ListenerStatus {
  configured: boolean
  bound: boolean
  addr: string
  error?: string
}

function listen(server: Server, ...args: [string] | [number, string | undefined]): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(...(args as [number, string]), () => {
      server.off('error', reject)
      resolve()
    })
  })
}

/** Stops accepting, lets in-flight requests finish briefly, then drops what is left. */
function retire(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), 2_000)
    server.close(() => {
      clearTimeout(force)
      resolve()
    })
    server.closeIdleConnections()
  })
}

/**
 * A TCP listener that can move: `bind` listens on the new address before closing the
 * old one, so a failed rebind leaves the old address serving.
 */
export class TcpListener {
  /** `boundAddr` is read once at bind: Health asks on every call, and server.address() is a syscall. */
  private active: { server: Server; addr: string; boundAddr: string; port: number } | undefined
  private configured = ''
  private error: string | undefined

  constructor(
    private readonly name: string,
    private readonly handler: RequestListener,
    private readonly upgrade: UpgradeListener,
    private readonly log: Logger,
  ) {}

  status(): ListenerStatus {
    return {
      configured: this.configured !== '',
      bound: this.active !== undefined,
      addr: this.active?.boundAddr ?? '',
      ...(this.error === undefined ? {} : { error: this.error }),
    }
  }

  /** The port it listens on, while it does. */
  port(): number | undefined {
    return this.active?.port
  }

  async bind(addr: string): Promise<void> {
    this.configured = addr
    if (addr === '' || this.active?.addr === addr) {
      this.error = undefined
      if (addr === '') await this.close()
      return
    }
    const { host, port } = parseListenAddress(addr)
    const arrival: TcpArrival = { loopbackBind: host !== '' && isLoopbackHost(host) }
    const next = createServer((request, response) => {
      ;(request as Tagged)[ARRIVAL] = arrival
      this.handler(request, response)
    })
    next.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      ;(request as Tagged)[ARRIVAL] = arrival
      this.upgrade(request, socket, head)
    })
    next.on('clientError', answerClientError)
    try {
      await listen(next, port, host === '' ? undefined : host)
    } catch (error) {
      this.error = `cannot listen on ${addr}: ${(error as Error).message}`
      this.log.error({ listener: this.name, addr }, this.error)
      throw new Error(this.error + (this.active ? `; still serving on ${this.status().addr}` : ''), { cause: error })
    }
    const previous = this.active
    const address = next.address() as AddressInfo
    this.active = { server: next, addr, port: address.port, boundAddr: formatListenAddress({ host: address.address, port: address.port }) }
    this.error = undefined
    this.log.info({ listener: this.name, addr: this.status().addr }, 'listening')
    if (previous) await retire(previous.server)
  }

  async close(): Promise<void> {
    const active = this.active
    this.active = undefined
    if (active) await retire(active.server)
  }
}

/**
 * Binds the API socket: any file there is stale (we hold the lock), and it is 0600.
 * Answers how to stop it: Fastify closes only a server it started listening itself.
 */
export async function listenUnix(server: Server, path: string): Promise<() => Promise<void>> {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error
  })
  await listen(server, path)
  await chmod(path, 0o600)
  return () => retire(server)
}

