#!/usr/bin/env node
import { CommanderError } from 'commander'
import { DaemonError, ServiceHomeError, SVC_VERSION, UnreachableError } from '@svc/protocol'
import { awayFailure } from './daemon-target.js'
import { EXIT, UsageError } from './exit.js'
import { program } from './program.js'

/** A daemon that rejects a field this client sends is older than the client. */
function versionSkew(error: DaemonError): string | undefined {
  const field = /unknown field "([^"]+)"/.exec(error.message)?.[1]
  if (error.status !== 400 || field === undefined) return undefined
  return (
    `version skew: the running daemon does not know the field "${field}" that this client (${SVC_VERSION}) sends.\n` +
    'Restart the daemon so it matches the client: svc daemon stop && svc daemon start'
  )
}

function report(error: unknown): number {
  if (error instanceof CommanderError) {
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage
  }
  const say = (message: string) => process.stderr.write(`svc: ${message}\n`)
  const away = awayFailure(error)
  if (away !== undefined) {
    say(away)
    return error instanceof UnreachableError ? EXIT.unreachable : EXIT.daemon
  }
  if (error instanceof UsageError || error instanceof ServiceHomeError) {
    say(error.message)
    return EXIT.usage
  }
  if (error instanceof UnreachableError) {
    say(error.message)
    return EXIT.unreachable
  }
  if (error instanceof DaemonError) {
    say(versionSkew(error) ?? error.message)
    if (error.committed) say('the change was saved before the failure; do not retry it')
    else if (!error.daemonRejected) say('the outcome is uncertain: check the state before retrying')
    return EXIT.daemon
  }
  say(error instanceof Error ? error.message : String(error))
  return EXIT.daemon
}

program().parseAsync(process.argv).catch((error: unknown) => {
  process.exitCode = report(error)
})
