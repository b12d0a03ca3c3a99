import { useSyncExternalStore } from 'react'

/** What the user chose; "auto" follows the system's `prefers-color-scheme`. */
export type ThemeChoice = 'light' | 'dark' | 'auto'
export type Theme = 'light' | 'dark'

export const THEME_CHOICES: ThemeChoice[] = ['auto', 'light', 'dark']
/** The browser keeps the choice; index.html's first script reads the same key before the page paints. */
const STORAGE_KEY = 'svc.theme'

const system = window.matchMedia('(prefers-color-scheme: dark)')
const listeners = new Set<() => void>()

function stored(): ThemeChoice {
  const value = localStorage.getItem(STORAGE_KEY)
  return value === 'light' || value === 'dark' ? value : 'auto'
}

function resolve(choice: ThemeChoice): Theme {
  return choice === 'auto' ? (system.matches ? 'dark' : 'light') : choice
}

let current = { choice: stored(), theme: resolve(stored()) }

function apply() {
  const choice = stored()
  current = { choice, theme: resolve(choice) }
  document.documentElement.classList.toggle('dark', current.theme === 'dark')
  document.documentElement.style.colorScheme = current.theme
  for (const listener of listeners) listener()
}

system.addEventListener('change', apply)
// Another tab of the same daemon changed it.
window.addEventListener('storage', (event) => {
  if (event.key === STORAGE_KEY) apply()
})
apply()

export function chooseTheme(choice: ThemeChoice): void {
  if (choice === 'auto') localStorage.removeItem(STORAGE_KEY)
  else localStorage.setItem(STORAGE_KEY, choice)
  apply()
}

/** The choice and the theme it resolves to, re-rendering when either changes. */
export function useTheme(): { choice: ThemeChoice; theme: Theme } {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => current,
  )
}
