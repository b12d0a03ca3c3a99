import { useState } from 'react'
import { ArrowUp, FolderGit2, Folder } from 'lucide-react'
import type { ResponseOf } from '@svc/protocol/browser'
import { api } from '../api'
import { ui } from './ui'

type Listing = ResponseOf<'ListDirectory'>

/** Browses the daemon's machine for a repository to start a session in. */
export function DirectoryPicker({ onPick }: { onPick: (path: string) => void }) {
  const [listing, setListing] = useState<Listing | undefined>()
  const [error, setError] = useState('')
  const open = (path: string) =>
    void api.call('ListDirectory', path ? { path } : {}).then(
      (next) => (setListing(next), setError('')),
      (failure: Error) => setError(failure.message),
    )
  if (!listing) {
    return (
      <button type="button" className={ui.link} onClick={() => open('')}>
        Browse for another repository…
      </button>
    )
  }
  return (
    <div className={`${ui.card} p-2`}>
      <div className="flex flex-wrap items-center gap-2">
        <button type="button" className={ui.button} onClick={() => open(listing.parent)} disabled={!listing.parent} aria-label="parent directory">
          <ArrowUp aria-hidden className="size-4" />
        </button>
        <code className="min-w-0 flex-1 break-all text-sm">{listing.path}</code>
        {listing.is_repo ? (
          <button type="button" className={ui.primary} onClick={() => (onPick(listing.path), setListing(undefined))}>
            Use this repository
          </button>
        ) : null}
      </div>
      <ul className="mt-2 max-h-48 overflow-y-auto">
        {listing.entries.map((entry) => (
          <li key={entry.path}>
            <button type="button" className={`${ui.link} flex w-full items-center gap-2 rounded px-1 py-0.5 hover:bg-raised`} onClick={() => open(entry.path)}>
              {entry.is_repo ? <FolderGit2 aria-hidden className="size-4 shrink-0" /> : <Folder aria-hidden className="size-4 shrink-0" />}
              {entry.name}
              {entry.is_repo ? ' (git)' : ''}
            </button>
          </li>
        ))}
      </ul>
      {listing.truncated ? <p className="mt-1 text-xs text-muted">Only the first entries are shown.</p> : null}
      {error ? (
        <p className="mt-1 text-sm text-danger" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  )
}
