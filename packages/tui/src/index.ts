export { runUi, type UiOptions } from './run.js'
export { screenRenderer } from './screen-renderer.js'
export { sampleSession, sampleSessions } from './sample.js'
