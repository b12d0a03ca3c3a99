import type { Command } from 'commander'
import { EVENT_KINDS, kindMatches, type FeedFrame } from '@svc/protocol'
import { connect, resolvePaths } from '../daemon-process.js'
import { UsageError } from '../exit.js'

interface EventsOptions {
  follow?: boolean
  kind: string[]
  session?: string
}

/** `--kind a,b --kind c`: each a kind or a prefix ending in a dot, checked against the known kinds. */
function kindsOf(values: string[]): string[] {
  const kinds = values.flatMap((value) => value.split(',')).map((kind) => kind.trim()).filter(Boolean)
  for (const kind of kinds) {
    if (!EVENT_KINDS.some((known) => kindMatches(known, [kind]))) {
      throw new UsageError(`unknown event kind "${kind}"; kinds: ${EVENT_KINDS.join(', ')} (or a prefix such as session.)`)
    }
  }
  return kinds
}

/** Session frames name their session by id and title; other frames name none. */
function aboutSession(frame: FeedFrame, session: string): boolean {
  if (frame.type === 'hello' || !frame.type.startsWith('session.') || !('data' in frame)) return false
  const data = frame.data as { id: string; title: string }
  return data.id === session || data.title === session
}

export function eventsCommand(program: Command): void {
  program
    .command('events')
    .description(
      'print the event feed as NDJSON: without --follow, wait for the next matching event, print it and exit; ' +
        'with --follow, print every matching event (and a hello frame at each (re)connection) until interrupted',
    )
    .option('-f, --follow', 'keep printing until interrupted')
    .option('--kind <kind>', 'only these kinds (repeatable or comma-separated; a prefix such as session. matches a family)', (value: string, kinds: string[]) => [...kinds, value], [])
    .option('--session <title|id>', 'only events about this session')
    .action(async (options: EventsOptions) => {
      const kinds = kindsOf(options.kind)
      const wanted = (frame: FeedFrame) =>
        frame.type !== 'hello' &&
        kindMatches(frame.type, kinds) &&
        (options.session === undefined || aboutSession(frame, options.session))
      const abort = new AbortController()
      process.once('SIGINT', () => abort.abort())
      process.once('SIGTERM', () => abort.abort())
      for await (const frame of (await connect(resolvePaths())).events({ signal: abort.signal })) {
        // A hello tells a follower that events may have been missed: it is printed too.
        if (options.follow ? frame.type === 'hello' || wanted(frame) : wanted(frame)) process.stdout.write(`${JSON.stringify(frame)}\n`)
        if (!options.follow && wanted(frame)) break
      }
    })
}
