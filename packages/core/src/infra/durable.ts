import { randomBytes } from 'node:crypto'
import type { Stats } from 'node:fs'
import { open, readdir, readFile, rename, stat, unlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/**
 * Replaces `path` so that readers see either the old or the new content, never a mix,
 * and the new content survives a crash once this resolves: temp file, fsync, rename,
 * fsync of the directory.
 */
export async function writeFileDurable(path: string, data: string | Buffer, mode = 0o600): Promise<void> {
  await (await stageFileDurable(path, data, mode)).install()
}

/** Like writeFileDurable, without the fsyncs: atomic for readers and process crashes, not power loss. */
export async function writeFileAtomic(path: string, data: string, mode = 0o600): Promise<void> {
  await installFile(await writeTemp(path, data, mode, false), path, false)
}

/** A replacement of a file written and synced aside, to be put in place later in one rename. */
export interface StagedFile {
  /** Renames it over the file and syncs the directory: the moment the new content counts. */
  install(): Promise<void>
  /** Removes it if it was not installed. */
  discard(): Promise<void>
}

/**
 * The slow half of writeFileDurable, for a writer that must not hold others up while a
 * large file reaches the disk: the content is durable aside once this resolves.
 */
export async function stageFileDurable(path: string, data: string | Buffer, mode = 0o600): Promise<StagedFile> {
  const temp = await writeTemp(path, data, mode, true)
  let installed = false
  return {
    install: async () => {
      installed = true
      await installFile(temp, path, true)
    },
    discard: async () => {
      if (!installed) await unlink(temp).catch(() => {})
    },
  }
}

/** `.<name>.<pid>.<8 hex>.tmp`, beside the file it replaces. */
const TEMP_FILE = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/

/** The pid of the process that writes the temp file `name`, or undefined when `name` is no temp file of ours. */
export function tempFileWriter(name: string): number | undefined {
  const pid = TEMP_FILE.exec(name)?.[1]
  return pid === undefined ? undefined : Number(pid)
}

async function writeTemp(path: string, data: string | Buffer, mode: number, durable: boolean): Promise<string> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  const file = await open(temp, 'w', mode)
  try {
    await file.writeFile(data)
    if (durable) await file.sync()
  } finally {
    await file.close()
  }
  return temp
}

async function installFile(temp: string, path: string, durable: boolean): Promise<void> {
  try {
    await rename(temp, path)
  } catch (error) {
    // The rename's error is the one to report; a temp file left behind is hidden and harmless.
    await unlink(temp).catch(() => {})
    throw error
  }
  if (durable) await syncDirectory(dirname(path))
}

/**
 * Removes the temp files interrupted writes left in `dir`, whichever process made them:
 * only for a directory this process alone writes, and only before it writes there (a
 * daemon restarted with a killed one's pid, as in a container, finds its own pid in
 * them). Returns their names.
 */
export async function removeLeftoverTempFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return []
    throw error
  })
  const leftovers = names.filter((name) => TEMP_FILE.test(name))
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
    if (missing(error)) return undefined
    throw error
  }
}

function missing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT'
}

/** The file's stats, or undefined when it does not exist. */
export async function statIfExists(path: string): Promise<Stats | undefined> {
  return stat(path).catch((error: unknown) => {
    if (missing(error)) return undefined
    throw error
  })
}

/** The file opened with `flags`, or undefined when it does not exist. */
export async function openIfExists(path: string, flags: string): Promise<FileHandle | undefined> {
  return open(path, flags).catch((error: unknown) => {
    if (missing(error)) return undefined
    throw error
  })
}

/** The bytes of `file` from `offset` up to `end`, fewer when the file ends sooner. */
export async function readFrom(file: FileHandle, offset: number, end: number): Promise<Buffer> {
  const buffer = Buffer.alloc(end - offset)
  let at = 0
  while (at < buffer.length) {
    const { bytesRead } = await file.read(buffer, at, buffer.length - at, offset + at)
    if (bytesRead === 0) break
    at += bytesRead
  }
  return buffer.subarray(0, at)
}


/** The `*.json` files of a directory, parsed; the ones that do not parse, apart. */
export interface JsonFiles<T> {
  values: T[]
  unreadable: Array<{ path: string; error: unknown }>
}

/** Reads every `*.json` file in `dir` (none when it is absent), changing nothing. */
export async function readJsonFiles<T>(dir: string): Promise<JsonFiles<T>> {
  const names = await readdir(dir).catch((error: unknown) => {
    if (missing(error)) return []
    throw error
  })
  const files: JsonFiles<T> = { values: [], unreadable: [] }
  for (const name of names.filter((entry) => entry.endsWith('.json'))) {
    const path = join(dir, name)
    try {
      files.values.push(JSON.parse(await readFile(path, 'utf8')) as T)
    } catch (error) {
      // Removed between the listing and the read (a session killed meanwhile): not there.
      if (!missing(error)) files.unreadable.push({ path, error })
    }
  }
  return files
}
