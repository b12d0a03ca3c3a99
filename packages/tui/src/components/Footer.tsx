import { Text } from 'ink'
import { MAIN_KEYS } from '../keys.js'

/** The main keys, wrapped to the width. */
export function Footer({ width }: { width: number }) {
  return (
    <Text color="gray" wrap="wrap">
      {MAIN_KEYS.map(({ key, label }) => `${key === 'enter' ? '⏎' : key} ${label}`)
        .join('  ')
        .slice(0, width * 2)}
    </Text>
  )
}
