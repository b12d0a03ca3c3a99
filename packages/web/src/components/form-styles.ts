/**
 * The classes form controls and buttons share, so every form and dialog looks alike.
 * Focus is drawn by the global `:focus-visible` rule in style.css.
 */
export const field =
  'mt-1 block w-full rounded-md border border-line bg-bg px-2 py-1.5 text-sm text-fg placeholder:text-muted disabled:opacity-60'
export const label = 'block text-sm font-medium'
export const hint = 'mt-1 block text-xs text-muted'
const base = 'inline-flex items-center justify-center gap-1 rounded-md px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-60'
export const button = `${base} border border-line bg-raised text-fg hover:bg-surface`
export const primaryButton = `${base} bg-accent text-on-accent hover:opacity-90`
export const dangerButton = `${base} bg-danger-fill text-on-danger-fill hover:opacity-90`
export const linkButton = 'text-left text-sm text-link underline-offset-2 hover:underline'
/** A modal's dimmed backdrop and its centered panel, phone-wide on a phone. */
export const overlay = 'fixed inset-0 z-40 bg-black/50'
export const panel =
  'fixed left-1/2 top-1/2 z-50 max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg border border-line bg-raised p-5 text-fg shadow-xl'
