import type { FeedState } from '@svc/protocol/browser'

/** Says, at the top and to a screen reader, that what is shown may be stale while the feed is down. */
export function ReconnectingBanner({ feed }: { feed: FeedState }) {
  // The live region is always there, so its words are announced as they appear.
  return (
    <div role="status" data-testid="reconnecting">
      {feed === 'reconnecting' ? (
        <p className="border-b border-line bg-raised px-3 py-1.5 text-sm text-fg">
          <span className="font-semibold text-tone-attention">Reconnecting to the daemon…</span> What you see may be out of date; it catches up once the daemon answers.
        </p>
      ) : null}
    </div>
  )
}
