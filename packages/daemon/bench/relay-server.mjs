// The home side of the relay bench, as a pinned child (spawnServer): the daemon's stream
// route alone on a TCP port, every session it is asked for relayed to the remote link it
// is sent. Answers its URL once listening.
import websocket from '@fastify/websocket'
import Fastify from 'fastify'
import { envelope } from '../dist/plugins/envelope.js'
import { streamRoutes } from '../dist/routes/stream.js'

const links = new Map()
const app = Fastify()
await app.register(envelope)
await app.register(async (upgrading) => {
  await upgrading.register(websocket)
  await upgrading.register(streamRoutes({}, {}, (session) => links.get(session)))
})
process.on('message', (link) => links.set(link.homeId, link))
process.once('disconnect', () => app.close().then(() => process.exit(0)))
process.send(await app.listen({ host: '127.0.0.1', port: 0 }))
