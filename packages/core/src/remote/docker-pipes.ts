import type { ChildProcess } from 'node:child_process'
import { createServer, type Server, type Socket } from 'node:net'
import type { Logger } from 'pino'
import { AGENT_PORT } from './docker-container.js'
import type { DockerEngine } from './docker-engine.js'
import type { SshListener } from './ssh-links.js'

/**
 * Run by node in the container: stdin to the agent server's port there and its answer
 * to stdout, ending when either side does (node is in every image svc runs).
 */
const PIPE = "const s=require('net').connect(Number(process.argv[1]),'127.0.0.1');process.stdin.pipe(s);s.pipe(process.stdout);s.on('error',()=>process.exit(1));s.on('close',()=>process.exit(0))"

/** One session's listener, and the connections piped through it. */
interface Pipe {
  server: Server
  sockets: Set<Socket>
}

export interface ExecPipesOptions {
  engine: DockerEngine
  /** Told when a session kept from before a restart is reachable again (its listener's port, perhaps a new one). */
  listener: Pick<SshListener, 'up'>
  log: Logger
}

/**
 * The way to agent servers on an engine on another machine reached over tcp://: a
 * listener on this machine's 127.0.0.1 per session (its endpoint), each connection to it
 * piped through `docker exec -i` to the agent server's port inside the container. The
 * engine carries every byte, so a session is reachable exactly when its engine is: when
 * the engine does not answer, the connections fail and the event relay marks it unreachable.
 */
export class ExecPipes {
  private readonly pipes = new Map<string, Pipe>()

  constructor(private readonly options: ExecPipesOptions) {}

  /** A listener for the session's container: on `preferred` when it is free (a restart keeps the endpoint), else on a free port; its port. */
  async open(id: string, container: string, preferred = 0): Promise<number> {
    this.close(id)
    const pipe: Pipe = { server: createServer((socket) => this.connect(pipe, container, socket)), sockets: new Set() }
    this.pipes.set(id, pipe)
    const listen = (port: number) => new Promise<number>((resolve, reject) => {
      pipe.server.once('error', reject).listen(port, '127.0.0.1', () => {
        pipe.server.off('error', reject)
        resolve((pipe.server.address() as { port: number }).port)
      })
    })
    try {
      const port = await listen(preferred).catch(() => listen(0))
      pipe.server.on('error', (error) => this.options.log.warn({ err: error, container }, 'a docker session\'s listener failed'))
      return port
    } catch (error) {
      this.close(id)
      throw error
    }
  }

  /** A session kept from before a restart: its listener put back, on the port its endpoint names when that is free. */
  resume(id: string, container: string, endpoint: string): void {
    this.open(id, container, Number(new URL(endpoint).port)).then(
      (port) => this.options.listener.up(id, `http://127.0.0.1:${port}`),
      (error: Error) => this.options.log.warn({ err: error, container }, 'could not listen for a docker session again'),
    )
  }

  /** The session ends: its listener and every connection through it. */
  close(id: string): void {
    const pipe = this.pipes.get(id)
    if (!pipe) return
    this.pipes.delete(id)
    pipe.server.close()
    for (const socket of pipe.sockets) socket.destroy()
  }

  closeAll(): void {
    for (const id of [...this.pipes.keys()]) this.close(id)
  }

  /** One connection, through its own `docker exec`: each ends the other. */
  private connect(pipe: Pipe, container: string, socket: Socket): void {
    pipe.sockets.add(socket)
    let child: ChildProcess | undefined
    socket.on('error', () => socket.destroy())
    socket.on('close', () => {
      pipe.sockets.delete(socket)
      if (child?.exitCode === null) child.kill()
    })
    this.options.engine.spawn(['exec', '-i', container, 'node', '-e', PIPE, String(AGENT_PORT)]).then(
      (spawned) => {
        child = spawned
        if (socket.destroyed) return void spawned.kill()
        spawned.on('error', () => socket.destroy())
        spawned.stdin?.on('error', () => socket.destroy())
        socket.pipe(spawned.stdin!)
        // Its end ends the connection, once what it wrote is sent: a docker exec that could not reach the engine or the port too (the relay retries).
        spawned.stdout?.pipe(socket)
      },
      () => socket.destroy(),
    )
  }
}
