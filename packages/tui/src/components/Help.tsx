import { Box, Text } from 'ink'
import { MAIN_KEYS, MOVE_HELP } from '../keys.js'
import { useDialogKeys } from './KeyRoot.js'

/** Every key of the main screen, with what it does; any key goes back. */
export function Help({ height, onClose }: { height: number; onClose: () => void }) {
  useDialogKeys(() => onClose())
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Text bold>Keys</Text>
      {MAIN_KEYS.map(({ key, help }) => (
        <Text key={key} wrap="truncate-end">
          <Text color="cyan">{key.padEnd(6)}</Text>
          {help}
        </Text>
      ))}
      <Text color="gray">{MOVE_HELP}</Text>
      <Text color="gray">! marks a session that needs you until you select it. Press any key to go back.</Text>
    </Box>
  )
}
