import { Box, Text } from 'ink'

export interface PreviewPaneProps {
  title: string | undefined
  /** Where the session runs when not on this machine (remoteWords). */
  where?: string | undefined
  /** The pane's visible text; undefined while none has been read. */
  text: string | undefined
  width: number
  height: number
}

/** The last lines of the pane that fit, trailing blank lines dropped (an agent's screen is mostly empty below its prompt). */
export function previewLines(text: string, height: number): string[] {
  const lines = text.replace(/\s+$/, '').split('\n')
  return lines.slice(Math.max(0, lines.length - height))
}

/** The selected session's agent screen, under a rule with its title (and its remote host, for a hook session). */
export function PreviewPane({ title, where, text, width, height }: PreviewPaneProps) {
  const heading = title === undefined ? '' : ` ${where ? `${title} · ${where}` : title} `
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text color="gray" wrap="truncate-end">{`──${heading}${'─'.repeat(Math.max(0, width - heading.length - 2))}`}</Text>
      {text === undefined ? (
        <Text color="gray">{title === undefined ? '' : 'reading the screen…'}</Text>
      ) : (
        previewLines(text, height - 1).map((line, index) => (
          <Text key={index} wrap="truncate-end">
            {line || ' '}
          </Text>
        ))
      )}
    </Box>
  )
}
