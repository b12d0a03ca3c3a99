// @svc/protocol for Node: the browser-safe part, and what needs Node (the socket client,
// the home and process helpers).
export * from './browser.js'
export * from './home.js'
export * from './alive.js'
export * from './daemon-exit.js'
export * from './version.js'
export * from './removed.js'
export * from './client.js'
export * from './agent-server.js'
export type { EventsOptions } from './event-feed.js'
export * from './stream-client.js'
export * from './quote.js'
export { openPlane, messageBytes, type PlaneSocket } from './plane-socket.js'
