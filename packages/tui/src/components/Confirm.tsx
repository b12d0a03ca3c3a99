import { Box, Text } from 'ink'
import { useDialogKeys } from './KeyRoot.js'
import { useRefState } from './use-ref-state.js'

export interface ConfirmProps {
  question: string
  /** What saying yes does, in full. */
  detail: string
  onAnswer: (yes: boolean) => void
}

/** A yes-or-no question: only `y` says yes. */
export function Confirm({ question, detail, onAnswer }: ConfirmProps) {
  const [answered, setAnswered] = useRefState(false)
  useDialogKeys((input) => {
    // Once: the keys after the answer in the same read are not answers too.
    if (answered()) return
    setAnswered(true)
    onAnswer(input === 'y' || input === 'Y')
  })
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="red" paddingX={1}>
      <Text bold>{question}</Text>
      <Text wrap="wrap">{detail}</Text>
      <Text color="gray">y to confirm, any other key to cancel</Text>
    </Box>
  )
}
