import { useState } from 'react'
import type { ResponseOf } from '@svc/protocol/browser'
import { api } from '../api'

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
      <button type="button" onClick={() => open('')}>
        Browse for another repository…
      </button>
    )
  }
  return (
    <div className="directory">
      <div>
        <button type="button" onClick={() => open(listing.parent)} disabled={!listing.parent} aria-label="parent directory">
          ..
        </button>{' '}
        <code>{listing.path}</code>{' '}
        {listing.is_repo ? (
          <button type="button" onClick={() => (onPick(listing.path), setListing(undefined))}>
            Use this repository
          </button>
        ) : null}
      </div>
      <ul>
        {listing.entries.map((entry) => (
          <li key={entry.path}>
            <button type="button" className="link" onClick={() => open(entry.path)}>
              {entry.name}
              {entry.is_repo ? ' (git)' : ''}
            </button>
          </li>
        ))}
      </ul>
      {listing.truncated ? <p>Only the first entries are shown.</p> : null}
      {error ? <p className="error">{error}</p> : null}
    </div>
  )
}
