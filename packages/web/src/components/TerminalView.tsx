import { FitAddon } from '@xterm/addon-fit'
import { Terminal } from '@xterm/xterm'
import '@xterm/xterm/css/xterm.css'
import { useEffect, useRef } from 'react'
import type { BrowserTerminal } from '@svc/protocol/browser'
import { api } from '../api'
import { leavesTerminal } from '../keyboard'
import { TERMINAL_PALETTES } from '../theme/terminal-palette'
import { useTheme } from '../theme/theme'
import { KeyRow } from './KeyRow'

/** Tries, a second apart, before a terminal that never opened is given up on. */
const NEVER_OPENED_TRIES = 5

export interface TerminalProps {
  /** The terminal's accessible name: whose terminal it is. */
  label: string
  /** The plane's path, replaying from `since` when given (`streamPath`, `loginStreamPath`). */
  path: (since: bigint | undefined) => string
  /** Written when the terminal ends (its tmux session went away). */
  endedText: string
  /** Written when it never opens. */
  unavailableText: string
  ended?: () => void
}

/**
 * A terminal over a stream plane: a session's tab, or an account's login. The cursor
 * counts the output bytes received, so a dropped connection comes back with `since` and
 * the ring replays what was missed.
 */
export function TerminalView({ label, path, endedText, unavailableText, ended: onEnded }: TerminalProps) {
  const host = useRef<HTMLDivElement>(null)
  const terminal = useRef<Terminal | undefined>(undefined)
  const { theme } = useTheme()
  const themeNow = useRef(theme)
  themeNow.current = theme
  const link = useRef<BrowserTerminal | undefined>(undefined)
  // The path without a cursor names the terminal: a new one starts over.
  const source = path(undefined)
  const latest = useRef({ path, onEnded })
  latest.current = { path, onEnded }
  useEffect(() => {
    // The agent's colors are raised to AA contrast against their background where they fall short.
    const term = new Terminal({ convertEol: false, cursorBlink: true, fontSize: 13, scrollback: 5000, minimumContrastRatio: 4.5, theme: TERMINAL_PALETTES[themeNow.current] })
    terminal.current = term
    const fit = new FitAddon()
    term.loadAddon(fit)
    // Ctrl+] is the page's, not the agent's: it goes on to the shortcuts (keyboard.ts) and leaves the terminal.
    term.attachCustomKeyEventHandler((event) => !leavesTerminal(event))
    term.open(host.current as HTMLDivElement)
    fit.fit()
    let cursor: bigint | undefined
    let ended = false
    let refusals = 0
    let retry: ReturnType<typeof setTimeout> | undefined
    const connect = () => {
      link.current = api.stream(latest.current.path(cursor), {
        frame(frame) {
          if (frame.type === 'hello') cursor = frame.cursor
          else if (frame.type === 'output') {
            cursor = (cursor ?? 0n) + BigInt(frame.data.length)
            term.write(frame.data)
          } else if (frame.type === 'repaint') term.write(frame.data)
          else if (frame.type === 'exit') {
            ended = true
            term.write(`\r\n[${endedText}]\r\n`)
            latest.current.onEnded?.()
          }
        },
        closed() {
          if (ended) return
          // A terminal that never opened (gone already, or never there) is not waited for forever.
          if (cursor === undefined && ++refusals >= NEVER_OPENED_TRIES) {
            term.write(`[${unavailableText}]\r\n`)
            return
          }
          retry = setTimeout(connect, 1000)
        },
      })
      link.current.resize(term.rows, term.cols)
    }
    connect()
    const typed = term.onData((data) => link.current?.input(data))
    const resized = term.onResize(({ rows, cols }) => link.current?.resize(rows, cols))
    const observer = new ResizeObserver(() => fit.fit())
    observer.observe(host.current as HTMLDivElement)
    return () => {
      ended = true
      clearTimeout(retry)
      observer.disconnect()
      typed.dispose()
      resized.dispose()
      link.current?.close()
      terminal.current = undefined
      term.dispose()
    }
  }, [source, endedText, unavailableText])
  // The palette follows the page's theme without reopening the stream.
  useEffect(() => {
    if (terminal.current) terminal.current.options.theme = TERMINAL_PALETTES[theme]
  }, [theme])
  // xterm names its input "Terminal input" for every terminal: this one says whose it is.
  useEffect(() => {
    host.current?.querySelector('.xterm-helper-textarea')?.setAttribute('aria-label', label)
  }, [source, label])
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-1">
      {/* The frame pads; the host inside has no padding or border, so xterm's fit measures its real size. */}
      <div className="flex min-h-48 flex-1 rounded-md border border-line bg-bg p-1">
        <div className="xterm-host min-w-0 flex-1 overflow-hidden" ref={host} data-testid="terminal" role="group" aria-label={label} />
      </div>
      <KeyRow send={(keys) => link.current?.input(keys)} />
    </div>
  )
}
