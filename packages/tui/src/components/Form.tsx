import { Box, Text } from 'ink'
import { editText } from './edit-text.js'
import { useRefState } from './use-ref-state.js'
import { useDialogKeys } from './KeyRoot.js'

/** A field; its placeholder is shown while its value is empty (a choice of '' means "the daemon decides"). */
export type Field = { name: string; label: string; placeholder?: string } & ({ kind: 'text' } | { kind: 'choice'; choices: readonly string[] })

export type Values = Record<string, string>

export interface FormProps {
  title: string
  fields: readonly Field[]
  initial: Values
  /** A line under the fields (what the form does). */
  hint?: string
  onSubmit: (values: Values) => void
  onCancel: () => void
}

/** A text field's line: the value with a cursor when focused, else its placeholder in grey when empty. */
export function TextField({ value, placeholder, focused }: { value: string; placeholder: string; focused: boolean }) {
  if (value === '' && !focused) return <Text color="gray">{placeholder}</Text>
  return (
    <Text wrap="truncate-start">
      {value}
      {focused ? <Text inverse> </Text> : ''}
      {value === '' ? <Text color="gray">{placeholder}</Text> : ''}
    </Text>
  )
}

/** A choice's line: the value, or its placeholder in grey when empty, between arrows when focused. */
function ChoiceField({ value, placeholder, focused }: { value: string; placeholder: string; focused: boolean }) {
  const shown = value === '' ? <Text color="gray">{placeholder}</Text> : value
  return <Text wrap="truncate-end">{focused ? <>‹ {shown} ›</> : shown}</Text>
}

/**
 * A dialog of text and choice fields: ↑/↓ or tab move, ←/→ change a choice, enter goes
 * to the next field and submits from the last, esc cancels.
 */
export function Form({ title, fields, initial, hint, onSubmit, onCancel }: FormProps) {
  const [values, setValues] = useRefState<Values>(initial)
  const [focus, setFocus] = useRefState(0)
  const set = (name: string, value: string) => setValues((before) => ({ ...before, [name]: value }))
  const advance = () => (focus() === fields.length - 1 ? onSubmit(values()) : setFocus(focus() + 1))

  useDialogKeys((input, key) => {
    if (key.escape) return onCancel()
    if (key.upArrow || (key.tab && key.shift)) return setFocus(Math.max(0, focus() - 1))
    if (key.downArrow || key.tab) return setFocus(Math.min(fields.length - 1, focus() + 1))
    // Enter is taken here for text fields too: one handler, so one key moves one field.
    if (key.return) return advance()
    const field = fields[focus()]
    if (field?.kind === 'text') {
      const edited = editText(values()[field.name] ?? '', input, key)
      if (edited !== undefined) set(field.name, edited)
      return
    }
    if (field?.kind !== 'choice') return
    const step = key.leftArrow ? -1 : key.rightArrow || input === ' ' ? 1 : 0
    if (step === 0 || field.choices.length === 0) return
    const at = field.choices.indexOf(values()[field.name] ?? '')
    set(field.name, field.choices[(at + step + field.choices.length) % field.choices.length] as string)
  })

  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{title}</Text>
      {fields.map((each, index) => (
        <Box key={each.name}>
          <Text color={index === focus() ? 'cyan' : 'gray'}>{`${index === focus() ? '›' : ' '} ${each.label.padEnd(9)} `}</Text>
          {each.kind === 'text' ? (
            <TextField value={values()[each.name] ?? ''} placeholder={each.placeholder ?? ''} focused={index === focus()} />
          ) : (
            <ChoiceField value={values()[each.name] ?? ''} placeholder={each.placeholder ?? ''} focused={index === focus()} />
          )}
        </Box>
      ))}
      <Text color="gray" wrap="truncate-end">
        {hint ?? '↑/↓ move  ←/→ choose  enter next/submit  esc cancel'}
      </Text>
    </Box>
  )
}
