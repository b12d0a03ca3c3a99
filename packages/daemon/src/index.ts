export { startDaemon, type RunningDaemon } from './daemon.js'
export { buildApp } from './app.js'
