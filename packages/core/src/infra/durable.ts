import { randomBytes } from 'node:crypto'
import { open, readdir, readFile, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/**
 * Replaces `path` so that readers see either the old or the new content, never a mix,
 * and the new content survives a crash once this resolves: temp file, fsync, rename,
 * fsync of the directory.
 */
export function writeFileDurable(path: string, data: string, mode = 0o600): Promise<void> {
  return replaceFile(path, data, mode, true)
}

/** Like writeFileDurable, without the fsyncs: atomic for readers and process crashes, not power loss. */
export function writeFileAtomic(path: string, data: string, mode = 0o600): Promise<void> {
  return replaceFile(path, data, mode, false)
}

/** `.<name>.<pid>.<8 hex>.tmp`, beside the file it replaces. */
const TEMP_FILE = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/

async function replaceFile(path: string, data: string, mode: number, durable: boolean): Promise<void> {
  const dir = dirname(path)
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  const file = await open(temp, 'w', mode)
  try {
    await file.writeFile(data)
    if (durable) await file.sync()
  } finally {
    await file.close()
  }
  try {
    await rename(temp, path)
  } catch (error) {
    // The rename's error is the one to report; a temp file left behind is hidden and harmless.
    await unlink(temp).catch(() => {})
    throw error
  }
  if (durable) await syncDirectory(dir)
}

/**
 * Removes the temp files that interrupted writes of other processes left in `dir` (a
 * killed daemon's): only for a directory this process alone writes. Returns their names.
 */
export async function removeLeftoverTempFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return []
    throw error
  })
  const leftovers = names.filter((name) => {
    const pid = TEMP_FILE.exec(name)?.[1]
    return pid !== undefined && Number(pid) !== process.pid
  })
  for (const name of leftovers) await unlink(join(dir, name)).catch(() => {})
  return leftovers
}

/** Removes a file so that the removal survives a crash; a missing file is fine. */
export async function removeFileDurable(path: string): Promise<void> {
  try {
    await unlink(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  await syncDirectory(dirname(path))
}

/** Makes the entries of `dir` (a file created, renamed or removed) survive a crash. */
export async function syncDirectory(dir: string): Promise<void> {
  const directory = await open(dir, 'r')
  try {
    await directory.sync()
  } finally {
    await directory.close()
  }
}

/** The file's text, or undefined when it does not exist. */
export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}
