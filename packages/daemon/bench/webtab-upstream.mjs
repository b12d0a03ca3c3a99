// The web tab's upstream in the webtab benchmark: node:http on loopback answering a fixed
// page of 2 KiB, a stand-in for a dev server's asset; its port is sent over IPC.
import { createServer } from 'node:http'

const BODY = Buffer.from('x'.repeat(2048))
process.once('disconnect', () => process.exit(0))
const server = createServer((request, response) => {
  request.resume()
  request.on('end', () => response.writeHead(200, { 'content-type': 'text/plain', 'content-length': BODY.length }).end(BODY))
})
server.listen(0, '127.0.0.1', () => process.send(server.address().port))
