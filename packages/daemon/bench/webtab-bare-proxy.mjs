// The proxy floor of the webtab benchmark: a bare Fastify with @fastify/reply-from and one
// catch-all route to the upstream on the port in argv (what the library alone costs, no
// rules); its own port is sent over IPC.
import Fastify from 'fastify'
import replyFrom from '@fastify/reply-from'

const origin = `http://127.0.0.1:${process.argv[2]}`
process.once('disconnect', () => process.exit(0))
const app = Fastify()
await app.register(replyFrom, { base: origin, undici: { headersTimeout: 0, bodyTimeout: 0 } })
app.get('/*', (request, reply) => reply.from(request.url))
await app.listen({ port: 0, host: '127.0.0.1' })
process.send(app.server.address().port)
