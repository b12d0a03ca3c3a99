export * from './harness.js'
export * from './sessions-kit.js'
