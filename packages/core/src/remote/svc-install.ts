import { createHash } from 'node:crypto'
import { execFile } from 'node:child_process'
import { createReadStream, existsSync } from 'node:fs'
import { mkdir, rename, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { SVC_VERSION } from '@svc/protocol'
import { shellQuote } from '../infra/launcher.js'
import { NOTHING_MADE_EXIT } from './remote-scripts.js'

/** The portable svc (scripts/pack-svc.mjs) as the daemon copies it to a host or container. */
export interface SvcArtifact {
  /** The tarball on this machine. */
  tarball: string
  /** `svc-<version>-<os>-<arch>`. */
  name: string
  version: string
  sha256: string
  /** `process.platform` / `process.arch` words: linux, darwin; x64, arm64. */
  os: string
  arch: string
}

/** Where a host keeps the svc the daemon installed there, as a shell word. */
export function hostSvcDir({ version }: SvcArtifact): string {
  return `"$HOME"/.svc-agent/versions/${shellQuote(version)}`
}

/** Where a container keeps it. */
export const CONTAINER_SVC_DIR = '/opt/svc'

/** The svc command in an install directory (a shell word, as hostSvcDir's). */
export function svcCommand(dir: string): string {
  return `${dir}/bin/svc`
}

const NAME = /^svc-(.+)-([a-z0-9]+)-([a-z0-9]+)$/

const NONE = `there is no portable svc to install there: run pnpm pack:svc in the svc checkout, or set SVC_ARTIFACT to a svc-<version>-<os>-<arch>.tar.gz`

const sums = new Map<string, { mtimeMs: number; sha256: string }>()

async function sha256Of(path: string): Promise<string> {
  const { mtimeMs } = await stat(path)
  const known = sums.get(path)
  if (known?.mtimeMs === mtimeMs) return known.sha256
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  const sha256 = hash.digest('hex')
  sums.set(path, { mtimeMs, sha256 })
  return sha256
}

async function described(tarball: string): Promise<SvcArtifact> {
  const name = basename(tarball).replace(/\.tar\.gz$/, '')
  const [, version, os, arch] = NAME.exec(name) ?? []
  if (!version || !os || !arch) throw new Error(`${tarball} is not named svc-<version>-<os>-<arch>.tar.gz`)
  const sha256 = await sha256Of(tarball).catch(() => {
    throw new Error(`cannot read the portable svc ${tarball}`)
  })
  return { tarball, name, version, sha256, os, arch }
}

/**
 * The root of the installed portable svc this code runs from (its package.json names the
 * `bin/svc` launcher and lib/daemon.mjs is there), or undefined in a checkout.
 */
function installedRoot(here: string): string | undefined {
  const root = fileURLToPath(new URL('..', here))
  return existsSync(join(root, 'bin/svc')) && existsSync(join(root, 'lib/daemon.mjs')) ? root : undefined
}

/**
 * This svc's portable tarball: SVC_ARTIFACT when set; for an installed portable svc, its
 * own tree packed once into `$SERVICE_HOME/artifacts`; in a checkout, `dist-pack/`'s
 * tarball of this version and platform. Throws a message to show when there is none.
 * `here` is this module's URL (tests pass another).
 */
export async function svcArtifact(home: string, env: NodeJS.ProcessEnv = process.env, here: string = import.meta.url): Promise<SvcArtifact> {
  if (env.SVC_ARTIFACT) return described(env.SVC_ARTIFACT)
  const name = `svc-${SVC_VERSION}-${process.platform}-${process.arch}`
  const root = installedRoot(here)
  if (root) {
    const tarball = join(home, 'artifacts', `${name}.tar.gz`)
    if (!existsSync(tarball)) {
      await mkdir(join(home, 'artifacts'), { recursive: true, mode: 0o700 })
      // Entries as ./bin/svc: unpacked with --strip-components=1, like dist-pack's svc-<…>/bin/svc.
      const temp = `${tarball}.${process.pid}.tmp`
      await promisify(execFile)('tar', ['-czf', temp, '-C', root, '.'])
      await rename(temp, tarball)
    }
    return described(tarball)
  }
  const packed = fileURLToPath(new URL(`../../../../dist-pack/${name}.tar.gz`, here))
  if (!existsSync(packed)) throw new Error(NONE)
  return described(packed)
}

/** `uname -s`-`uname -m` in the words an artifact's name uses. */
const PLATFORM = `case "$(uname -s)-$(uname -m)" in
  Linux-x86_64|Linux-amd64) platform=linux-x64 ;;
  Linux-aarch64|Linux-arm64) platform=linux-arm64 ;;
  Darwin-x86_64) platform=darwin-x64 ;;
  Darwin-arm64) platform=darwin-arm64 ;;
  *) platform="$(uname -s)-$(uname -m)" ;;
esac`

const REFUSE = `refuse() { printf '%s\\n' "$*" >&2; exit ${NOTHING_MADE_EXIT}; }`

/**
 * Run by `sh` where agents run: refuses (exit NOTHING_MADE_EXIT, one line on stderr
 * naming it) when node 20+, git, tmux or tar is missing or the machine is not the
 * artifact's platform; else prints `installed` when `dir` holds this artifact (by its
 * sha256), `absent` when not.
 */
export function probeScript(artifact: SvcArtifact, dir: string): string {
  const needs = 'svc needs Node.js 20 or newer, git and tmux'
  return `${REFUSE}
command -v node >/dev/null 2>&1 || refuse "node is not installed here; ${needs}"
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)
[ "\${major:-0}" -ge 20 ] 2>/dev/null || refuse "node $(node --version 2>/dev/null) here is too old; ${needs}"
for tool in git tmux tar; do
  command -v "$tool" >/dev/null 2>&1 || refuse "$tool is not installed here; ${needs} (and tar to install it)"
done
${PLATFORM}
[ "$platform" = ${shellQuote(`${artifact.os}-${artifact.arch}`)} ] || refuse "this machine is $platform; svc can install only its own ${artifact.os}-${artifact.arch} build here"
dir=${dir}
if [ -x "$dir/bin/svc" ] && [ "$(cat "$dir/.sha256" 2>/dev/null)" = ${artifact.sha256} ]; then echo installed; else echo absent; fi
`
}

/**
 * Run by `sh -c` where agents run (it holds no secret; stdin stays free for the tarball):
 * reads the tarball from `from` (`-`: stdin), refuses one whose sha256 is not the
 * artifact's, unpacks it beside `dir` and moves it into place whole, marked with its
 * sha256, so a half-copied svc is never run. An install that finds `dir` already holding
 * it (a concurrent create) leaves it be.
 */
export function installScript(artifact: SvcArtifact, dir: string, from = '-'): string {
  return `${REFUSE}
dir=${dir}
tmp="$dir.$$.tmp"
trap 'rm -rf "$tmp" "$tmp.tar.gz"' EXIT
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
src=${shellQuote(from)}
if [ "$src" = - ]; then cat >"$tmp.tar.gz" || exit 1; src="$tmp.tar.gz"; fi
sum=$( (sha256sum "$src" 2>/dev/null || shasum -a 256 "$src") | cut -d ' ' -f 1)
[ "$sum" = ${artifact.sha256} ] || refuse "the svc tarball arrived damaged (sha256 \${sum:-unreadable}, expected ${artifact.sha256})"
tar -xzf "$src" -C "$tmp" --strip-components=1 || refuse "could not unpack the svc tarball into $tmp"
printf '%s\\n' ${artifact.sha256} >"$tmp/.sha256"
[ "$(cat "$dir/.sha256" 2>/dev/null)" = ${artifact.sha256} ] && exit 0
rm -rf "$dir" && mv "$tmp" "$dir"
`
}

/** Reads the probe's verdict; undefined when its stdout is neither word. */
export function probed(stdout: string): 'installed' | 'absent' | undefined {
  const word = stdout.trim()
  return word === 'installed' || word === 'absent' ? word : undefined
}
