import Fastify from 'fastify'
import replyFrom from '@fastify/reply-from'
import { createServer, request as httpRequest, Agent } from 'node:http'
import { Pool } from '/work/main/node_modules/.pnpm/undici@7.30.2/node_modules/undici/index.js'
const [kind, upPort] = process.argv.slice(2)
const origin = `http://127.0.0.1:${upPort}`
if (kind === 'fastify') {
  const app = Fastify()
  await app.register(replyFrom, { undici: { headersTimeout: 0, bodyTimeout: 0 } })
  app.get('/*', (req, reply) => reply.from(req.url, { getUpstream: () => origin }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  process.send(app.server.address().port)
} else if (kind === 'fastify-base') {
  const app = Fastify()
  await app.register(replyFrom, { base: origin, undici: { headersTimeout: 0, bodyTimeout: 0 } })
  app.get('/*', (req, reply) => reply.from(req.url))
  await app.listen({ port: 0, host: '127.0.0.1' })
  process.send(app.server.address().port)
} else if (kind === 'undici') {
  const pool = new Pool(origin)
  const server = createServer(async (req, res) => {
    const up = await pool.request({ path: req.url, method: req.method, headers: req.headers })
    res.writeHead(up.statusCode, up.headers)
    up.body.pipe(res)
  })
  server.listen(0, '127.0.0.1', () => process.send(server.address().port))
} else {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 })
  const server = createServer((req, res) => {
    const up = httpRequest(origin + req.url, { agent, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers)
      r.pipe(res)
    })
    req.pipe(up)
  })
  server.listen(0, '127.0.0.1', () => process.send(server.address().port))
}
