import { useEffect, useState } from 'react'

/** Pages live in the hash (`#/session/<id>`), so the daemon serves one index.html for all of them. */
export type Page =
  | { name: 'fleet' }
  | { name: 'session'; id: string }
  | { name: 'new' }
  | { name: 'tasks' }
  | { name: 'projects' }
  | { name: 'accounts' }
  | { name: 'config' }

export function pageOf(hash: string): Page {
  const [name = '', id = ''] = hash.replace(/^#\/?/, '').split('/')
  if (name === 'session' && id) return { name, id: decodeURIComponent(id) }
  if (name === 'new' || name === 'tasks' || name === 'projects' || name === 'accounts' || name === 'config') return { name }
  return { name: 'fleet' }
}

export function hrefOf(page: Page): string {
  return page.name === 'session' ? `#/session/${encodeURIComponent(page.id)}` : `#/${page.name === 'fleet' ? '' : page.name}`
}

export function usePage(): Page {
  const [page, setPage] = useState(() => pageOf(window.location.hash))
  useEffect(() => {
    const changed = () => setPage(pageOf(window.location.hash))
    window.addEventListener('hashchange', changed)
    return () => window.removeEventListener('hashchange', changed)
  }, [])
  return page
}
