export * from './harness.js'
export * from './sessions-kit.js'
export * from './events-kit.js'
export * from './stream-kit.js'
