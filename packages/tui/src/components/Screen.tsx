import type { ReactNode } from 'react'
import { Box } from 'ink'
import { viaStream } from '../keys.js'
import { useLocalDaemon } from '../local-daemon.js'
import type { Connection } from '../live.js'
import type { Row } from '../state/rows.js'
import type { Session } from '../state/types.js'
import { remoteWords } from '../state/words.js'
import { Footer } from './Footer.js'
import { Header, type Notice } from './Header.js'
import { PreviewPane } from './PreviewPane.js'
import { SessionList } from './SessionList.js'

export interface ScreenProps {
  rows: readonly Row[]
  sessions: number
  attention: number
  selected: Session | undefined
  preview: string | undefined
  connection: Connection
  filter: string
  notice: Notice | undefined
  width: number
  height: number
  now: number
  /** A dialog, shown where the preview is. */
  dialog?: ReactNode
  /** A view that takes the place of the list and the preview (help, tasks). */
  view?: ReactNode
}

/** Side by side from this width; list above preview below it. */
const WIDE = 140
const CHROME = 4

/** The rows between the header and the footer. */
export function bodyHeight(height: number): number {
  return Math.max(4, height - CHROME)
}

/** The whole screen: header, the list and the preview (or a view in their place), the footer. */
export function Screen(props: ScreenProps) {
  const { width, height } = props
  const local = useLocalDaemon()
  const body = bodyHeight(height)
  const wide = width >= WIDE
  const listWidth = wide ? Math.floor(width * 0.55) : width
  const listHeight = wide ? body : Math.max(3, Math.floor(body / 2))
  const side = wide ? { width: width - listWidth - 1, height: body } : { width, height: body - listHeight }
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Header sessions={props.sessions} attention={props.attention} connection={props.connection} filter={props.filter} notice={props.notice} width={width} />
      {props.view ?? (
        <Box flexDirection={wide ? 'row' : 'column'} height={body} columnGap={1}>
          <SessionList rows={props.rows} selected={props.selected?.id} width={listWidth} height={listHeight} now={props.now} />
          {props.dialog ?? <PreviewPane title={props.selected?.title} where={props.selected && remoteWords(props.selected)} text={props.preview} width={side.width} height={side.height} />}
        </Box>
      )}
      <Box height={2} flexShrink={0}>
        <Footer width={width} stream={viaStream(props.selected, local)} />
      </Box>
    </Box>
  )
}
