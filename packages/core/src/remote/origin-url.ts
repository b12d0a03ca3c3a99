/**
 * An origin URL without the credentials it may carry (`https://me:token@host/repo.git`,
 * or a token as the user name): what goes on a hook's argv, into logs and errors, and
 * into an archive's location. A remote clones and pushes with its own credentials. An ssh
 * user (`ssh://git@host/repo`, `git@host:repo`) names a login, not a secret, and stays.
 */
export function withoutCredentials(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url
  }
  const web = parsed.protocol === 'http:' || parsed.protocol === 'https:'
  if (parsed.password === '' && !(web && parsed.username !== '')) return url
  if (web) parsed.username = ''
  parsed.password = ''
  return parsed.href
}
