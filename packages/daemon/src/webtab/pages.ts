import type { FastifyReply } from 'fastify'
import { PREVIEW_PROBE_MESSAGE } from '@svc/protocol'

/** Pages a web tab's frame shows instead of the dev server: plain HTML, no script unless said. */
function page(reply: FastifyReply, status: number, title: string, text: string, extra = ''): FastifyReply {
  const html = `<!doctype html><meta charset="utf-8"><title>${title}</title>
<body style="font-family: system-ui, sans-serif; margin: 2em; color: #333">
<h1 style="font-size: 1.2em">${title}</h1><p>${text}</p>${extra}</body>`
  return reply.code(status).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(html)
}

/** While the daemon restores its sessions, a tab's frame says so and reloads itself shortly. */
export function warmingPage(reply: FastifyReply): FastifyReply {
  return page(
    reply.header('retry-after', '1').header('refresh', '1'),
    503,
    'svc is starting',
    'The daemon is restoring its sessions; this tab reloads in a moment.',
  )
}

/** A preview origin whose label names no tab of this daemon run: closed, or minted before a restart. */
export function expiredPage(reply: FastifyReply): FastifyReply {
  return page(
    reply,
    503,
    'Preview address expired',
    'This preview address belongs to a tab that was closed or to an earlier run of the daemon (tab addresses change at every restart). Open the tab again from svc to get its current address.',
  )
}

/** Loaded in a frame from `svcprobe.localhost`: tells the client that preview origins reach this browser. */
export function probePage(reply: FastifyReply): FastifyReply {
  return page(reply, 200, 'svc preview probe', 'Preview origins work in this browser.', `<script>parent.postMessage(${JSON.stringify(PREVIEW_PROBE_MESSAGE)}, '*')</script>`)
}
