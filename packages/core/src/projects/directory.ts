import { existsSync } from 'node:fs'
import { readdir, realpath, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Static } from 'typebox'
import { expandHome, type ListDirectoryResponse, excerpt } from '@svc/protocol'
import { InvalidRequest } from '../errors.js'

/** More entries than a picker can show are cut off, and said so. */
const MAX_ENTRIES = 1000

function isRepo(path: string): boolean {
  return existsSync(join(path, '.git'))
}

async function canonical(path: string): Promise<string> {
  try {
    return await realpath(path)
  } catch (error) {
    throw new InvalidRequest(`cannot list ${excerpt(path)}: ${(error as Error).message}`)
  }
}

/**
 * The child directories of one directory on the daemon's filesystem, with `~` and
 * symlinks resolved to canonical paths and git checkouts marked. Hidden directories
 * are left out. An unreadable directory is an error, never an empty list.
 */
export async function listDirectory(requested = '~'): Promise<Static<typeof ListDirectoryResponse>> {
  const home = homedir()
  const path = await canonical(expandHome(requested || '~', home))
  let children
  try {
    children = await readdir(path, { withFileTypes: true })
  } catch (error) {
    throw new InvalidRequest(`cannot list ${excerpt(path)}: ${(error as Error).message}`)
  }
  const entries = []
  for (const child of children.sort((a, b) => a.name.localeCompare(b.name))) {
    if (child.name.startsWith('.')) continue
    let target = join(path, child.name)
    if (child.isSymbolicLink()) {
      const resolved = await realpath(target).catch(() => undefined) // a dangling link is not a directory
      if (!resolved || !(await stat(resolved)).isDirectory()) continue
      target = resolved
    } else if (!child.isDirectory()) continue
    entries.push({ name: child.name, path: target, is_repo: isRepo(target) })
  }
  return {
    path,
    parent: path === '/' ? '' : dirname(path),
    home,
    is_repo: isRepo(path),
    entries: entries.slice(0, MAX_ENTRIES),
    truncated: entries.length > MAX_ENTRIES,
  }
}
