import { Box, Text } from 'ink'
import type { AttentionReason, StateTone } from '@svc/protocol'
import type { Session } from '../state/types.js'
import { age, idleWords, stateLook } from '../state/words.js'

/** The terminal's color for each state tone; the web UI's theme has the same families. */
export const TONE_COLORS: Record<StateTone, string> = {
  running: 'green',
  ready: 'cyan',
  attention: 'yellow',
  limit: 'yellow',
  lost: 'red',
  archived: 'gray',
  busy: 'blue',
}

/** Column widths for a row `width` cells wide: the fixed columns first, the rest shared out. */
export function columns(width: number) {
  const rest = Math.max(30, width - 23)
  const title = Math.floor(rest * 0.24)
  const idle = Math.floor(rest * 0.32)
  // Room for a hook session's "program@" at 80 columns.
  const program = Math.max(9, Math.floor(rest * 0.16))
  return { mark: 2, state: 16, title, idle, program, branch: rest - title - idle - program, age: 5 }
}

export interface SessionRowProps {
  session: Session
  attention: AttentionReason | undefined
  selected: boolean
  width: number
  now: number
}

function Cell({ width, children, color }: { width: number; children: string; color?: string | undefined }) {
  return (
    <Box width={width} flexShrink={0} paddingRight={1}>
      <Text wrap="truncate-end" color={color}>
        {children}
      </Text>
    </Box>
  )
}

/**
 * One session: attention mark, state glyph and word, title, idle reason, program, branch, age of the last pane change.
 * A hook session's program reads `program@host`, and its idle reason starts with "unreachable" while its remote does not answer.
 */
export function SessionRow({ session, attention, selected, width, now }: SessionRowProps) {
  const widths = columns(width)
  const { glyph, word, tone } = stateLook(session)
  return (
    <Box width={width} height={1} flexShrink={0}>
      <Box width={widths.mark} flexShrink={0}>
        <Text color={TONE_COLORS.attention} bold>
          {attention ? '!' : ' '}
        </Text>
      </Box>
      <Box width={widths.state} flexShrink={0}>
        <Text inverse={selected} color={TONE_COLORS[tone]} wrap="truncate-end">{`${glyph} ${word}`}</Text>
      </Box>
      <Box width={widths.title} flexShrink={0} paddingRight={1}>
        <Text inverse={selected} bold wrap="truncate-end">
          {session.title}
        </Text>
      </Box>
      <Cell width={widths.idle} color={session.remote_unreachable ? 'red' : session.idle_reason ? 'yellow' : undefined}>
        {session.remote_unreachable ? ['unreachable', idleWords(session)].filter(Boolean).join(' · ') : idleWords(session)}
      </Cell>
      <Cell width={widths.program}>{session.remote_host === undefined ? session.program : `${session.program}@${session.remote_host}`}</Cell>
      <Cell width={widths.branch} color="gray">
        {session.branch}
      </Cell>
      <Box width={widths.age} flexShrink={0} justifyContent="flex-end">
        <Text color="gray">{age(session.last_pane_churn_at, now)}</Text>
      </Box>
    </Box>
  )
}
