import { useState } from 'react'
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
      <button type="button" className={ui.button} onClick={() => open('')}>
        Browse for another repository…
      </button>
    )
  }
  return (
    <div className={`${ui.card} space-y-2 p-3`}>
      <div className="flex flex-wrap items-center gap-2">
        <button type="button" className={ui.button} onClick={() => open(listing.parent)} disabled={!listing.parent} aria-label="parent directory">
          ..
        </button>
        <code className="min-w-0 flex-1 font-mono text-sm break-all">{listing.path}</code>
        {listing.is_repo ? (
          <button type="button" className={ui.primary} onClick={() => (onPick(listing.path), setListing(undefined))}>
            Use this repository
          </button>
        ) : null}
      </div>
      <ul className="max-h-72 overflow-y-auto text-sm">
        {listing.entries.map((entry) => (
          <li key={entry.path}>
            <button type="button" className={`${ui.link} py-0.5`} onClick={() => open(entry.path)}>
              {entry.name}
              {entry.is_repo ? ' (git)' : ''}
            </button>
          </li>
        ))}
      </ul>
      {listing.truncated ? <p className={ui.empty}>Only the first entries are shown.</p> : null}
      {error ? <p className="text-sm text-danger">{error}</p> : null}
    </div>
  )
}
