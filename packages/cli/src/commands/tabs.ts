import type { Command } from 'commander'
import type { RequestOf } from '@svc/protocol'
import { integer, oneOf } from '../args.js'
import { printTable } from '../output.js'
import { reply } from '../reply.js'
import { callDaemon } from '../call.js'
import { resolvePaths } from '../daemon-process.js'
import { lookupSession, sessionCall, sessionRef, withSessionRef, type SessionRefOptions } from '../session-ref.js'
import { describeTabUrls, tabUrls } from './tab-urls.js'

interface TabOptions extends SessionRefOptions {
  tabId?: string
  name?: string
  index?: number
}

type TabSelector = Pick<RequestOf<'CloseTab'>, 'tab_id' | 'tab_name' | 'tab_index'>

/** Exactly one of --tab-id, --name, --index picks the tab; the daemon never falls back from an id. */
function tabSelector(options: TabOptions): TabSelector {
  const flag = oneOf({ '--tab-id': options.tabId, '--name': options.name, '--index': options.index }, true)
  if (flag === '--tab-id') return { tab_id: options.tabId }
  return flag === '--name' ? { tab_name: options.name } : { tab_index: options.index }
}

/** A tab command: `<title>` and the session options, the tab selector, then its own arguments. */
function tabCommand(tabs: Command, name: string, description: string): Command {
  return tabs
    .command(name)
    .description(description)
    .argument('<title>', 'the session')
    .option('--tab-id <id>', 'the tab by its stable id (refused if it no longer exists)')
    .option('--name <name>', 'the tab by name')
    .option('--index <n>', 'the tab by position (0 is the agent tab)', integer)
}

interface CreateOptions extends SessionRefOptions {
  shell?: boolean
  command?: string
  web?: string
  port?: number
  editor?: boolean
  name?: string
}

/** The CreateTab fields for the kind the flags ask for; a shell when none does. */
function tabKind(options: CreateOptions): RequestOf<'CreateTab'> {
  const flag = oneOf(
    { '--shell': options.shell, '--command': options.command, '--web': options.web, '--port': options.port, '--editor': options.editor },
    false,
  )
  if (flag === '--command') return { command: options.command }
  if (flag === '--web') return { kind: 'web', url: options.web }
  if (flag === '--port') return { kind: 'web', port: options.port }
  if (flag === '--editor') return { kind: 'editor' }
  return { shell: true }
}

/** The tab URL's path and query, which the proxy roots at the upstream's origin. */
function tabPath(url: string | undefined): string {
  if (url === undefined) return '/'
  const parsed = new URL(url)
  return `${parsed.pathname}${parsed.search}`
}

export function tabsCommand(program: Command): void {
  const tabs = program
    .command('tabs')
    .description("a session's tabs: index 0 is the agent; shells, processes, web pages and an editor follow")

  withSessionRef(tabs.command('list <title>'))
    .description("list a session's tabs in order (from Snapshot)")
    .action(async (title: string, options: SessionRefOptions, command: Command) => {
      const session = await lookupSession(title, options)
      reply(command, { tabs: session.tabs }, () =>
        printTable(
          ['INDEX', 'ID', 'KIND', 'NAME', 'TMUX', 'TARGET'],
          session.tabs.map((tab, index) => [
            String(index),
            tab.id ?? '',
            tab.kind_name,
            tab.name,
            tab.tmux_name ?? '',
            tab.url ? `${tab.url}${tab.web_proxied ? ' (proxied)' : ''}` : (tab.command ?? ''),
          ]),
        ),
      )
    })

  withSessionRef(
    tabs
      .command('create <title>')
      .description('open a tab in the session: a shell (default), a process, a web page or an editor; prints where to open a proxied one')
      .option('--shell', 'a shell in the worktree (the default)')
      .option('--command <command>', 'a process tab running this command line in the worktree')
      .option('--web <url>', 'a web tab framing this http(s) URL')
      .option('--port <n>', 'a web tab framing http://localhost:<n>', integer)
      .option('--editor', 'an editor serving the worktree (needs code-server or openvscode-server on PATH)')
      .option('--name <name>', 'the tab name (sanitized and made unique)')
      .addHelpText(
        'after',
        `
Examples:
  svc tabs create fix-parser                          # a shell in the worktree
  svc tabs create fix-parser --command "pnpm dev" --name dev
  svc tabs create fix-parser --port 5173 --name app   # prints the URL to open`,
      ),
  ).action(async (title: string, options: CreateOptions, command: Command) => {
    const paths = resolvePaths()
    const request = { ...sessionRef(title, options), ...tabKind(options), ...(options.name ? { name: options.name } : {}) }
    const created = await callDaemon(paths, 'CreateTab', request)
    const session = await lookupSession(title, options)
    const tab = session.tabs.find((candidate) => candidate.id === created.id)
    const proxied = tab !== undefined && (tab.web_proxied === true || tab.kind_name === 'editor')
    const urls = proxied && created.id ? await tabUrls(paths, session.id, created.id, tabPath(tab.url)) : undefined
    const { listeners } = urls ? await callDaemon(paths, 'Health') : { listeners: undefined }
    reply(command, urls ? { ...created, urls } : created, () => {
      const lines = [`${title}: opened tab ${created.name}${created.id ? ` (id ${created.id})` : ''}`]
      if (urls) lines.push(...describeTabUrls(urls, listeners?.tcp_error))
      process.stdout.write(`${lines.join('\n')}\n`)
    })
  })

  sessionCall(
    tabCommand(tabs, 'close', 'close a tab (not the agent tab)'),
    'CloseTab',
    (ref, _args, options: TabOptions) => ({ ...ref, ...tabSelector(options) }),
    (response, title) => `${title}: closed tab ${response.name}`,
  )
  sessionCall(
    tabCommand(tabs, 'rename', 'rename a web, process or editor tab').argument('<new-name>', 'sanitized and made unique'),
    'RenameTab',
    (ref, [newName], options: TabOptions) => ({ ...ref, ...tabSelector(options), new_name: newName as string }),
    (response, title) => `${title}: tab renamed to ${response.name}`,
  )
  sessionCall(
    tabCommand(tabs, 'move', 'move a tab to another position (1 to n-1; 0 is the agent tab)').argument('<new-index>', 'its new position', integer),
    'ReorderTab',
    (ref, [newIndex], options: TabOptions) => ({ ...ref, ...tabSelector(options), new_index: newIndex as number }),
    (response, title) => `${title}: tab ${response.name} is now at index ${response.index}`,
  )
}
