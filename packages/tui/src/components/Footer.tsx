import { Text } from 'ink'
import { MAIN_KEYS, STREAM_DETACH } from '../keys.js'

/** The main keys, wrapped to the width; `stream` when enter attaches through the daemon's stream, which Ctrl-\ leaves. */
export function Footer({ width, stream }: { width: number; stream: boolean }) {
  return (
    <Text color="gray" wrap="wrap">
      {MAIN_KEYS.map(({ key, label }) => (key === 'enter' ? `⏎ ${label}${stream ? ` (${STREAM_DETACH})` : ''}` : `${key} ${label}`))
        .join('  ')
        .slice(0, width * 2)}
    </Text>
  )
}
