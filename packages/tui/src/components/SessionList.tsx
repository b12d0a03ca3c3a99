import { Box, Text } from 'ink'
import { visibleWindow, type Row } from '../state/rows.js'
import { SessionRow } from './SessionRow.js'

export interface SessionListProps {
  rows: readonly Row[]
  selected: string | undefined
  width: number
  height: number
  now: number
}

/** The rows that fit, grouped under their project's name; only those are rendered, however many sessions there are. */
export function SessionList({ rows, selected, width, height, now }: SessionListProps) {
  if (rows.length === 0) {
    return (
      <Box height={height} width={width}>
        <Text color="gray">No sessions. Press n to start one.</Text>
      </Box>
    )
  }
  return (
    <Box flexDirection="column" height={height} width={width} overflow="hidden">
      {visibleWindow(rows, selected, height).map((row) =>
        row.kind === 'group' ? (
          <Box key={row.key} height={1} flexShrink={0}>
            <Text bold color="blue" wrap="truncate-end">{`${row.name} (${row.count})`}</Text>
          </Box>
        ) : (
          <SessionRow key={row.key} session={row.session} attention={row.attention} selected={row.key === selected} width={width} now={now} />
        ),
      )}
    </Box>
  )
}
