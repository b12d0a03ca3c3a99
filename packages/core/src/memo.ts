/**
 * `compute` remembered per key. Keys may come from the network (a Host header, a peer
 * address), so the memo is emptied whenever it reaches `limit` rather than growing with
 * every value ever seen. Only for pure functions whose results are never mutated.
 */
export function memoized<T>(compute: (key: string) => T, limit = 1_000): (key: string) => T {
  const memo = new Map<string, T>()
  return (key) => {
    const known = memo.get(key)
    if (known !== undefined || memo.has(key)) return known as T
    const value = compute(key)
    if (memo.size >= limit) memo.clear()
    memo.set(key, value)
    return value
  }
}
