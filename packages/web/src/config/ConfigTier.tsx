import { ChevronRight } from 'lucide-react'
import { Collapsible } from 'radix-ui'
import { useId, type ReactNode } from 'react'
import type { Entry } from './entry'

const HEADINGS: Record<Entry['tier_name'], string> = { core: 'Core', common: 'Common', advanced: 'Advanced' }

/** The keys of one tier under its heading; the advanced tier starts folded. */
export function ConfigTier({ tier, count, children }: { tier: Entry['tier_name']; count: number; children: ReactNode }) {
  const headingId = useId()
  if (count === 0) return null
  const heading = `${HEADINGS[tier]} (${count})`
  if (tier !== 'advanced') {
    return (
      <section data-tier={tier} aria-labelledby={headingId} className="mb-6">
        <h2 id={headingId} className="mb-1 text-base font-semibold text-fg">
          {heading}
        </h2>
        {children}
      </section>
    )
  }
  return (
    <Collapsible.Root asChild>
      <section data-tier={tier} aria-labelledby={headingId} className="group mb-6">
        <h2 id={headingId} className="mb-1 text-base font-semibold text-fg">
          <Collapsible.Trigger className="inline-flex items-center gap-1 rounded-md py-1 pr-2 hover:bg-surface">
            <ChevronRight aria-hidden className="size-4 transition-transform group-data-[state=open]:rotate-90" />
            {heading}
          </Collapsible.Trigger>
        </h2>
        <Collapsible.Content>{children}</Collapsible.Content>
      </section>
    </Collapsible.Root>
  )
}
