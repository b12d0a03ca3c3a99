// The config page's controls share one look, from the theme's color roles.
export const FIELD =
  'min-w-0 rounded-md border border-line bg-raised px-2 py-1 text-sm text-fg placeholder:text-muted disabled:opacity-60 aria-[invalid=true]:border-danger'
export const BUTTON =
  'inline-flex items-center gap-1 rounded-md border border-line bg-raised px-2 py-1 text-sm text-fg hover:bg-surface disabled:cursor-not-allowed disabled:opacity-60'
export const PRIMARY =
  'inline-flex items-center gap-1 rounded-md border border-accent bg-accent px-3 py-1 text-sm font-medium text-on-accent hover:opacity-90 disabled:cursor-not-allowed disabled:border-line disabled:bg-raised disabled:text-muted'
