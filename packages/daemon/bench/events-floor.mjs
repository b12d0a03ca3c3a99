// The floor of the events bench, run pinned like the daemon: node:http and a bare `ws`
// server on one Unix socket. `POST /trigger` does what a daemon change costs at least (a
// durable write of a small file) and then sends one frame of the daemon's size to every
// subscriber, then answers.
import { createServer } from 'node:http'
import { join } from 'node:path'
import { WebSocketServer } from 'ws'
import { writeFileDurable } from '@svc/core'

const [socketPath, dir] = process.argv.slice(2)
const frame = await new Promise((resolve) => process.once('message', resolve))
process.once('disconnect', () => process.exit(0))
const sockets = new WebSocketServer({ noServer: true })
const server = createServer((request, response) => {
  request.resume()
  request.on('end', async () => {
    await writeFileDurable(join(dir, 'record.json'), frame)
    for (const socket of sockets.clients) socket.send(frame)
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end('{}')
  })
})
server.on('upgrade', (request, socket, head) => sockets.handleUpgrade(request, socket, head, (ws) => ws.send('{"type":"hello"}')))
server.listen(socketPath, () => process.send('listening'))
