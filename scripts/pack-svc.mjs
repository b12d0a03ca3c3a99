// `pnpm pack:svc`: the portable svc, one tarball that runs with the node on PATH and no
// checkout: dist-pack/svc-<version>-<os>-<arch>.tar.gz. Bundles the built packages
// (`pnpm build` first), so it packs exactly what the tests run.
//
//   svc-<version>-<os>-<arch>/
//     package.json          {"bin": {"svc": "bin/svc"}}: `npm install -g` the tarball works too
//     bin/svc               the launcher: refuses a missing or old node, runs lib/cli.mjs
//     lib/cli.mjs           the CLI and the terminal UI (and `svc agent-server`)
//     lib/daemon.mjs        the daemon, which the CLI finds beside itself (daemon-process.ts)
//     lib/web/              the web UI's built files, found beside the daemon (web-ui.ts)
//     lib/build/Release/    node-pty's native module, where bundled node-pty looks for it
//
// The version is read from `../package.json` by the bundles (protocol's version.ts), so the
// bundles sit one level under the root package.json, which carries it.
import { execFileSync } from 'node:child_process'
import { chmod, copyFile, cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createRequire } from 'node:module'
import { build } from 'esbuild'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const at = (path) => join(ROOT, path)

// CommonJS dependencies inside an ES module bundle still call require and read __dirname
// (node-pty finds its native module with both).
const BANNER = `import { createRequire as __svcRequire } from 'node:module';
import { fileURLToPath as __svcPath } from 'node:url';
import { dirname as __svcDir } from 'node:path';
const require = __svcRequire(import.meta.url);
const __filename = __svcPath(import.meta.url);
const __dirname = __svcDir(__filename);`

const LAUNCHER = `#!/bin/sh
# The portable svc's launcher: the CLI bundle on the node found on PATH (20 or newer).
set -e
self=$0
# npm install -g links bin/svc from elsewhere: follow the links to the unpacked tree.
# Shell builtins only until node is found, so a bare PATH still gets the refusal below.
while [ -L "$self" ]; do
  link=$(readlink "$self")
  case $link in /*) self=$link ;; *) self=\${self%/*}/$link ;; esac
done
root=$(cd "\${self%/*}/.." && pwd)
if ! command -v node >/dev/null 2>&1; then
  echo "svc: node is not on PATH; svc needs Node.js 20 or newer (https://nodejs.org)" >&2
  exit 127
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "svc: node $(node --version) is too old; svc needs Node.js 20 or newer" >&2
  exit 1
fi
exec node "$root/lib/cli.mjs" "$@"
`

/** node-pty's directory and its built native files (pty.node; spawn-helper on macOS). */
async function nodePty() {
  const dir = dirname(createRequire(at('packages/daemon/package.json')).resolve('node-pty/package.json'))
  const release = join(dir, 'build/Release')
  const names = ['pty.node', 'spawn-helper']
  const present = await Promise.all(names.map((name) => stat(join(release, name)).then(() => name, () => undefined)))
  if (!present.includes('pty.node')) throw new Error(`node-pty is not built: no ${release}/pty.node (pnpm install builds it)`)
  return { release, files: present.filter(Boolean) }
}

// ink imports the React devtools (not installed) only when DEV=true, and reports a failure.
const noDevtools = {
  name: 'no-devtools',
  setup(build) {
    build.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'stub' }))
    build.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: "throw new Error('the React devtools are not in the portable svc')" }))
  },
}

/** One bundle per program, each an ES module that runs on node 20. */
function bundle(entry, outfile) {
  return build({
    entryPoints: [at(entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Not minified: a crash's stack in a user's daemon.log stays readable.
    banner: { js: BANNER },
    plugins: [noDevtools],
    logLevel: 'warning',
  })
}

/** Packs the portable svc; returns the tarball's path and size in bytes. */
export async function packSvc({ outDir = at('dist-pack') } = {}) {
  const { version } = JSON.parse(await readFile(at('packages/protocol/package.json'), 'utf8'))
  const name = `svc-${version}-${process.platform}-${process.arch}`
  const web = at('packages/web/dist')
  await stat(join(web, 'index.html')).catch(() => {
    throw new Error(`the web UI is not built (${web}): run pnpm build first`)
  })
  const pty = await nodePty()
  const stage = await mkdtemp(join(tmpdir(), 'svc-pack-'))
  try {
    const tree = join(stage, name)
    const lib = join(tree, 'lib')
    await mkdir(join(lib, 'build/Release'), { recursive: true })
    await mkdir(join(tree, 'bin'))
    await Promise.all([
      bundle('packages/cli/dist/main.js', join(lib, 'cli.mjs')),
      bundle('packages/daemon/dist/main.js', join(lib, 'daemon.mjs')),
      cp(web, join(lib, 'web'), { recursive: true }),
      ...pty.files.map((file) => copyFile(join(pty.release, file), join(lib, 'build/Release', file))),
    ])
    const manifest = { name: 'svc', version, description: 'Coding agents side by side, each in its own worktree and tmux session', type: 'module', bin: { svc: 'bin/svc' }, engines: { node: '>=20' }, os: [process.platform], cpu: [process.arch] }
    await writeFile(join(tree, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    await writeFile(join(tree, 'bin/svc'), LAUNCHER)
    await chmod(join(tree, 'bin/svc'), 0o755)
    await mkdir(outDir, { recursive: true })
    const tarball = join(outDir, `${name}.tar.gz`)
    execFileSync('tar', ['-czf', tarball, '-C', stage, name])
    return { path: tarball, bytes: (await stat(tarball)).size }
  } finally {
    await rm(stage, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { path, bytes } = await packSvc()
  process.stdout.write(`${path} (${(bytes / 1024 / 1024).toFixed(1)} MB)\n`)
}
