import { Tooltip } from 'radix-ui'
import type { ReactElement } from 'react'

/**
 * A tooltip naming an icon-only control on hover and keyboard focus: sighted users get the
 * word its `aria-label` gives screen readers. `children` must forward a ref (a DOM element
 * or a Radix trigger).
 */
export function Hint({ text, children }: { text: string; children: ReactElement }) {
  return (
    <Tooltip.Root>
      <Tooltip.Trigger asChild>{children}</Tooltip.Trigger>
      <Tooltip.Portal>
        <Tooltip.Content sideOffset={6} className="z-50 rounded-md bg-fg px-2 py-1 text-xs text-bg shadow-md">
          {text}
        </Tooltip.Content>
      </Tooltip.Portal>
    </Tooltip.Root>
  )
}
