// The floors: fixed bytes on a Unix socket, from node:http and nothing else, or (with
// "fastify" as the second argument) from a bare Fastify with one route per answer and a
// string body parser, which shows what the framework alone costs; "fastify-in-daemon"
// serves that bare Fastify from a process that also runs a daemon (on a home of its own,
// serving its own socket), which shows what being inside the daemon's process costs a
// route with none of the daemon's code on its path.
import { createServer } from 'node:http'
import Fastify from 'fastify'

// The answers arrive over IPC: a large body (a Snapshot of 1,000 sessions) exceeds argv limits.
const [socketPath, framework] = process.argv.slice(2)
const answers = await new Promise((resolve) => process.once('message', resolve))
const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * A daemon started here as its own entry starts it; resolves with its teardown. Imported
 * only then: the other floors load nothing of svc.
 */
async function hostDaemon() {
  const { startDaemon } = await import('@svc/daemon')
  const { makeHome, removeHome } = await import('./daemon-home.mjs')
  const made = await makeHome()
  const daemon = await startDaemon({ ...process.env, SERVICE_HOME: made.home })
  await daemon.restored
  return async () => {
    await daemon.stop()
    await removeHome(made)
  }
}

// Stopped (or an interrupted benchmark's exit closing the IPC channel): leave nothing behind.
let teardown = async () => {}
const exit = () => void teardown().finally(() => process.exit(0))
process.once('disconnect', exit)
// `on`, not `once`: signal-exit (loaded with the daemon) re-raises a signal it sees no other
// listener for, which would end this process before its teardown.
process.on('SIGTERM', exit)
if (framework === 'fastify-in-daemon') teardown = await hostDaemon()

if (framework.startsWith('fastify')) {
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
