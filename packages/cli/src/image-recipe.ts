import { existsSync, readFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'

/** Where a docker session image starts from: an image the engine has, or a Dockerfile to build first. */
export type ImageBase = { image: string; from: string } | { dockerfile: string; context: string; from: string }

/** JSON with comments (devcontainer.json allows them), the comments outside strings dropped. */
export function parseJsonc(text: string): unknown {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string
    if (char === '"') {
      const end = stringEnd(text, i)
      out += text.slice(i, end)
      i = end - 1
    } else if (char === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++
      out += '\n'
    } else if (char === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2)
      if (i < 0) break
      i++
    } else out += char
  }
  // Trailing commas, which devcontainer.json also allows.
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'))
}

function stringEnd(text: string, start: number): number {
  let i = start + 1
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
  return i + 1
}

/**
 * The base a repository's `.devcontainer/devcontainer.json` names: its `image`, or its
 * `build.dockerfile` (with `build.context`, both relative to the .devcontainer folder);
 * undefined without one. Throws a message to show for a file that names neither.
 */
export function devcontainerBase(repo: string): ImageBase | undefined {
  const file = join(repo, '.devcontainer', 'devcontainer.json')
  if (!existsSync(file)) return undefined
  let config: { image?: unknown; build?: { dockerfile?: unknown; context?: unknown }; dockerFile?: unknown }
  try {
    config = parseJsonc(readFileSync(file, 'utf8')) as typeof config
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${(error as Error).message}`, { cause: error })
  }
  if (typeof config.image === 'string' && config.image.trim()) return { image: config.image.trim(), from: `${file} (image)` }
  const dockerfile = config.build?.dockerfile ?? config.dockerFile
  if (typeof dockerfile === 'string' && dockerfile.trim()) {
    const dir = dirname(file)
    const context = typeof config.build?.context === 'string' ? config.build.context : '.'
    return { dockerfile: resolve(dir, dockerfile), context: resolve(dir, context), from: `${file} (build.dockerfile)` }
  }
  throw new Error(`${file} names neither an image nor a build.dockerfile; pass --from IMAGE`)
}

/** The default tag of a repository's image: `svc-<its folder name>:latest`, in the words a tag allows. */
export function defaultTag(repo: string | undefined): string {
  const name = repo ? basename(resolve(repo)).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-._]+|[-._]+$/g, '') : ''
  return `svc-${name || 'agent'}:latest`
}

/** The file svc's own node binary is copied to in the build context. */
export const NODE_IN_CONTEXT = 'svc-node'

/**
 * The Dockerfile that puts what svc needs on `base`: git and tmux from the base's own
 * package manager when it lacks them (apt-get, apk, dnf or yum), Node.js 20+ as this
 * machine's node binary when the base has none (Alpine's from apk: a glibc binary would
 * not run there), a UTF-8 locale for tmux. svc itself is installed by the daemon into
 * each container, by version, so the image never goes stale with it.
 */
export function imageDockerfile(base: string, nodeInContext: boolean): string {
  // A node binary of another OS (a Mac's) would not run in a Linux container: then the base must have node.
  const copy = nodeInContext ? `COPY ${NODE_IN_CONTEXT} /usr/local/lib/svc-node/node\n` : 'RUN mkdir -p /usr/local/lib/svc-node\n'
  return `FROM ${base}
${copy}RUN set -e; \\
  has_node() { node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' >/dev/null 2>&1; }; \\
  need=""; \\
  command -v git >/dev/null 2>&1 || need="$need git"; \\
  command -v tmux >/dev/null 2>&1 || need="$need tmux"; \\
  if command -v apk >/dev/null 2>&1 && ! has_node; then need="$need nodejs"; fi; \\
  if [ -n "$need" ]; then \\
    if command -v apt-get >/dev/null 2>&1; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need ca-certificates && rm -rf /var/lib/apt/lists/*; \\
    elif command -v apk >/dev/null 2>&1; then apk add --no-cache $need; \\
    elif command -v dnf >/dev/null 2>&1; then dnf install -y $need; \\
    elif command -v yum >/dev/null 2>&1; then yum install -y $need; \\
    else echo "svc image build: the base lacks$need and has no package manager svc knows (apt-get, apk, dnf, yum); start from a base that has them" >&2; exit 1; fi; \\
  fi; \\
  if has_node || [ ! -e /usr/local/lib/svc-node/node ]; then rm -rf /usr/local/lib/svc-node; else mkdir -p /usr/local/bin && ln -sf /usr/local/lib/svc-node/node /usr/local/bin/node; fi; \\
  has_node || { echo "svc image build: node 20+ does not run on this base" >&2; exit 1; }
ENV LANG=C.UTF-8
`
}
