import { Monitor, Moon, Sun } from 'lucide-react'
import { DropdownMenu } from 'radix-ui'
import { Hint } from '../components/Hint'
import { chooseTheme, THEME_CHOICES, useTheme, type ThemeChoice } from './theme'

const CHOICES: Record<ThemeChoice, { label: string; Icon: typeof Sun }> = {
  auto: { label: 'Auto (system)', Icon: Monitor },
  light: { label: 'Light', Icon: Sun },
  dark: { label: 'Dark', Icon: Moon },
}

/** Light, dark or the system's theme; the browser keeps the choice. */
export function ThemeMenu() {
  const { choice } = useTheme()
  const { Icon } = CHOICES[choice]
  return (
    <DropdownMenu.Root>
      <Hint text={`Theme: ${CHOICES[choice].label}`}>
        <DropdownMenu.Trigger
          className="inline-flex items-center gap-1 rounded-md border border-line px-2 py-1 text-sm hover:bg-surface"
          aria-label={`Theme: ${CHOICES[choice].label}`}
        >
          <Icon aria-hidden className="size-4" />
        </DropdownMenu.Trigger>
      </Hint>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="end" sideOffset={4} className="z-50 min-w-40 rounded-md border border-line bg-raised p-1 text-fg shadow-lg">
          <DropdownMenu.RadioGroup value={choice} onValueChange={(value) => chooseTheme(value as ThemeChoice)}>
            {THEME_CHOICES.map((value) => {
              const { label, Icon: ItemIcon } = CHOICES[value]
              return (
                <DropdownMenu.RadioItem
                  key={value}
                  value={value}
                  className="flex cursor-pointer items-center gap-2 rounded px-2 py-1 text-sm outline-none data-[highlighted]:bg-surface data-[state=checked]:font-semibold"
                >
                  <ItemIcon aria-hidden className="size-4" />
                  {label}
                </DropdownMenu.RadioItem>
              )
            })}
          </DropdownMenu.RadioGroup>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  )
}
