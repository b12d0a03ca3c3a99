// The floors: fixed bytes on a Unix socket, from node:http and nothing else, or (with
// "fastify" as the second argument) from a bare Fastify with one route per answer and a
// string body parser, which shows what the framework alone costs.
import { createServer } from 'node:http'
import Fastify from 'fastify'

// The answers arrive over IPC: a large body (a Snapshot of 1,000 sessions) exceeds argv limits.
const [socketPath, framework] = process.argv.slice(2)
const answers = await new Promise((resolve) => process.once('message', resolve))
// An interrupted benchmark cannot stop us; its exit closes the IPC channel instead.
process.once('disconnect', () => process.exit(0))
const JSON_TYPE = 'application/json; charset=utf-8'

if (framework === 'fastify') {
  const app = Fastify()
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, text, done) => done(null, text))
  for (const [route, body] of Object.entries(answers)) {
    const [method, url] = route.split(' ')
    app.route({ method, url, handler: (_request, reply) => reply.type(JSON_TYPE).send(body) })
  }
  await app.listen({ path: socketPath })
  process.send('listening')
} else {
  createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      const body = answers[`${request.method} ${request.url}`]
      response.writeHead(body === undefined ? 404 : 200, { 'content-type': JSON_TYPE })
      response.end(body ?? '{}')
    })
  }).listen(socketPath, () => process.send('listening'))
}
