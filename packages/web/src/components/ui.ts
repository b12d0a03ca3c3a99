/**
 * The few control looks every page shares, as Tailwind classes: one place to change a
 * button or a field everywhere. Focus shows by the global ring (style.css).
 */
const field = 'rounded-md border border-line bg-bg px-2 py-1.5 text-sm text-fg placeholder:text-muted disabled:opacity-60'
const control = 'inline-flex items-center justify-center gap-1.5 rounded-md px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-50'

export const ui = {
  /** An everyday action. */
  button: `${control} border border-line bg-raised text-fg hover:bg-surface`,
  /** The page's main action: one per view. */
  primary: `${control} bg-accent text-on-accent hover:opacity-90`,
  /** What deletes or ends something. */
  danger: `${control} bg-danger-fill text-on-danger-fill hover:opacity-90`,
  /** A button that reads as a link. */
  link: 'text-link underline-offset-2 hover:underline',
  /** Text fields, selects and text areas. */
  field,
  /** A form's field under its label, the form's full width. */
  blockField: `${field} mt-1 block w-full`,
  /** A form field's label, above it. */
  label: 'block text-sm font-medium',
  /** A line under a field saying what it takes or what happens when it is left empty. */
  hint: 'mt-1 block text-xs text-muted',
  /** A modal's dimmed backdrop. */
  overlay: 'fixed inset-0 z-40 bg-black/50',
  /** A modal's centered panel, phone-wide on a phone. */
  panel:
    'fixed left-1/2 top-1/2 z-50 max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg border border-line bg-raised p-5 text-fg shadow-xl',
  /** A page's content column beside the header. */
  page: 'mx-auto w-full max-w-6xl space-y-4 p-4',
  /** A page's heading. */
  heading: 'text-lg font-semibold',
  /** A bordered box holding a list or a form. */
  card: 'rounded-lg border border-line bg-surface',
  /** Words that say there is nothing here, and what to do. */
  empty: 'text-sm text-muted',
}

/** Text and fill classes per state tone, spelled out so Tailwind sees them. */
export const TONE_TEXT = {
  running: 'text-tone-running',
  ready: 'text-tone-ready',
  attention: 'text-tone-attention',
  limit: 'text-tone-limit',
  lost: 'text-tone-lost',
  archived: 'text-tone-archived',
  busy: 'text-tone-busy',
} as const

export const TONE_FILL = {
  running: 'bg-tone-running',
  ready: 'bg-tone-ready',
  attention: 'bg-tone-attention',
  limit: 'bg-tone-limit',
  lost: 'bg-tone-lost',
  archived: 'bg-tone-archived',
  busy: 'bg-tone-busy',
} as const
