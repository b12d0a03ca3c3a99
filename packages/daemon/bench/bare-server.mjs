// The floor: node:http on a Unix socket answering fixed bytes, nothing else.
import { createServer } from 'node:http'

// The answers arrive over IPC: a large body (a Snapshot of 1,000 sessions) exceeds argv limits.
const socketPath = process.argv[2]
const answers = await new Promise((resolve) => process.once('message', resolve))
// An interrupted benchmark cannot stop us; its exit closes the IPC channel instead.
process.once('disconnect', () => process.exit(0))

createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    const body = answers[`${request.method} ${request.url}`]
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json; charset=utf-8' })
    response.end(body ?? '{}')
  })
}).listen(socketPath, () => process.send('listening'))
