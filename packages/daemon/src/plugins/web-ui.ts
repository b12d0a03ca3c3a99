import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyError, FastifyInstance } from 'fastify'
import fastifyStatic from '@fastify/static'

/**
 * The web UI's built files: beside the daemon in the portable svc (scripts/pack-svc.mjs),
 * else where `pnpm build` puts them; undefined when the package is not installed.
 */
export function webUiRoot(): string | undefined {
  const bundled = fileURLToPath(new URL('web', import.meta.url))
  if (existsSync(bundled)) return bundled
  try {
    return join(dirname(createRequire(import.meta.url).resolve('@svc/web/package.json')), 'dist')
  } catch {
    return undefined
  }
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>svc</title>
<h1>svc is running</h1>
<p>The web UI is not built on this machine. Build it with <code>pnpm build</code> in the svc checkout and reload.</p>
<p>The API answers under <code>/v1/</code>; the <code>svc</code> command and <code>svc ui</code> work without the web UI.</p>`

/**
 * The web UI at `/`, same origin as the API, behind the same gate (a browser logs in with
 * the URL `svc web` prints). File names under assets/ carry their content hash, so they
 * are cached for good; the rest is revalidated so a rebuild shows at the next load:
 * index.html, the manifest (application/manifest+json) and the service worker, sw.js,
 * whose update checks must reach the daemon. The worker sits at the root, so its scope
 * (`/`, the whole UI) needs no Service-Worker-Allowed header.
 */
export async function webUi(app: FastifyInstance, { root }: { root: string | undefined }): Promise<void> {
  if (root === undefined || !existsSync(join(root, 'index.html'))) {
    app.get('/', (_request, reply) => reply.type('text/html; charset=utf-8').send(NOT_BUILT))
    return
  }
  // A path the static files refuse to read (`%5C`, `..`, a NUL byte) names no file and no
  // route: the unknown-route 404, as any path the router does not know, whatever its
  // bytes. 403 is the network-safety rules' alone. Other errors go to the envelope's handler.
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.code === 'FST_STATIC_FORBIDDEN_PATH') return reply.callNotFound()
    throw error
  })
  await app.register(fastifyStatic, {
    root,
    wildcard: true,
    setHeaders: (reply, path) => {
      const hashed = path.startsWith(join(root, 'assets'))
      reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache')
    },
  })
}
