import { Box, Text } from 'ink'
import type { Connection } from '../live.js'

export interface Notice {
  text: string
  error: boolean
}

export interface HeaderProps {
  sessions: number
  attention: number
  connection: Connection
  filter: string
  notice: Notice | undefined
  width: number
}

const CONNECTION_WORDS: Record<Connection, { word: string; color: string }> = {
  connecting: { word: 'connecting…', color: 'yellow' },
  live: { word: 'live', color: 'green' },
  reconnecting: { word: 'reconnecting…', color: 'yellow' },
}

/** One line: the counts, the filter, the connection; then the outcome of the last action, if any. */
export function Header({ sessions, attention, connection, filter, notice, width }: HeaderProps) {
  const { word, color } = CONNECTION_WORDS[connection]
  return (
    <Box flexDirection="column" width={width}>
      <Box width={width}>
        <Box flexGrow={1}>
          <Text wrap="truncate-end">
            <Text bold>svc</Text>
            {` · ${sessions} session${sessions === 1 ? '' : 's'}`}
            {attention > 0 ? <Text color="yellow">{` · ${attention} need${attention === 1 ? 's' : ''} you`}</Text> : ''}
            {filter ? <Text color="cyan">{` · filter: ${filter}`}</Text> : ''}
          </Text>
        </Box>
        <Text color={color}>{word}</Text>
      </Box>
      <Text wrap="truncate-end" color={notice?.error ? 'red' : 'green'}>
        {notice?.text ?? ' '}
      </Text>
    </Box>
  )
}
