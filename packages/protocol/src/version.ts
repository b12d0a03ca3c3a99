import { createRequire } from 'node:module'

/** One version for the whole product: the daemon reports it, clients send it. */
export const SVC_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version

/** Its presence selects lenient decoding; it is not authentication. */
export const CLIENT_VERSION_HEADER = 'x-svc-client-version'
