// The web tab's upstream in the webtab benchmark, its port and the path to fetch sent over
// IPC: with "node", node:http on loopback answering a fixed 2 KiB page (the cheapest
// possible server, so the proxy's cost shows whole); with "vite", a real Vite dev server
// serving an app's transformed entry module, what a web tab usually frames.
import { createServer } from 'node:http'
import { rmSync } from 'node:fs'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

process.once('disconnect', () => process.exit(0))

if (process.argv[2] === 'vite') {
  const { createServer: createVite } = await import('vite')
  const root = await mkdtemp('/tmp/svc-bench-vite-')
  process.once('exit', () => rmSync(root, { recursive: true, force: true }))
  await writeFile(join(root, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>')
  await writeFile(join(root, 'message.js'), 'export const message = "hello"\n')
  const lines = Array.from({ length: 60 }, (_, i) => `export const line${i} = message + ${i} // a module of about 2 KiB`)
  await writeFile(join(root, 'main.js'), `import { message } from './message.js'\n${lines.join('\n')}\n`)
  const vite = await createVite({ root, configFile: false, logLevel: 'silent', server: { host: '127.0.0.1', port: 0 } })
  await vite.listen()
  process.send({ port: vite.httpServer.address().port, path: '/main.js' })
} else {
  const BODY = Buffer.from('x'.repeat(2048))
  const server = createServer((request, response) => {
    request.resume()
    request.on('end', () => response.writeHead(200, { 'content-type': 'text/plain', 'content-length': BODY.length }).end(BODY))
  })
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port, path: '/asset' }))
}
