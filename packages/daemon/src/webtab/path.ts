/** `..` in any spelling (`%2e%2e`, backslashes) would climb out of the tab's path. */
export function climbs(rawPath: string): boolean {
  // Without a `%` nothing decodes, so only a literal `..` can climb: most paths have neither.
  if (!rawPath.includes('..') && !rawPath.includes('%')) return false
  let decoded: string
  try {
    decoded = decodeURIComponent(rawPath)
  } catch {
    return true
  }
  return decoded.replaceAll('\\', '/').split('/').includes('..')
}

/** A raw request URL as its path and its query (with the `?`), neither decoded. */
export function splitUrl(url: string): { path: string; search: string } {
  const queryAt = url.indexOf('?')
  return queryAt === -1 ? { path: url, search: '' } : { path: url.slice(0, queryAt), search: url.slice(queryAt) }
}
