import { quote } from '@svc/protocol'
import { Refused } from '../errors.js'

/** A slug names the remote's infrastructure (a pod, a container, a directory): at most this many bytes. */
export const SLUG_MAX_BYTES = 200

/**
 * The slug `launch_cmd` and `delete_cmd` get as `--name`: the title lowercased, spaces
 * to `-`, only `[a-z0-9-]`, at most 200 bytes, trimmed of `-`. Refused when nothing is left.
 */
export function slugOf(title: string): string {
  const slug = title
    .toLowerCase()
    .replaceAll(' ', '-')
    .replace(/[^a-z0-9-]/g, '')
    .slice(0, SLUG_MAX_BYTES)
    .replace(/^-+|-+$/g, '')
  if (slug === '') throw new Refused(`the title ${quote(title)} leaves an empty slug for the hook backend (it keeps only a-z, 0-9 and -); choose another title`)
  return slug
}
