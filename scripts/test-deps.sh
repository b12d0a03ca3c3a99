#!/usr/bin/env bash
# What `pnpm test` needs beyond `pnpm install`, installed where missing (`pnpm test:deps`;
# the README's test command runs it, and so CI through .ci/run):
# - the system commands the tests use, as Debian packages (apt-get; sudo when not root);
# - the real agent CLIs the real-agent tests run, at the versions pinned in
#   packages/test-kit/agent-clis.json, with npm into a cache outside the repository
#   (never into pnpm-lock.yaml): ${SVC_AGENT_CLIS:-${XDG_CACHE_HOME:-$HOME/.cache}/svc/agent-clis}/<pins>/
#   where <pins> is the first 12 hex digits of the sha256 of agent-clis.json, as
#   agentClisDir() in packages/test-kit/src/real-agents/cache.ts computes it.
# A second run finds everything present and touches neither apt nor npm.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# --- system commands -----------------------------------------------------------------
missing=()
# Sessions are git worktrees and branches; every integration test makes a repository.
command -v git >/dev/null 2>&1 || missing+=(git)
# Agents run in tmux.
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
# The browser tests drive Debian's chromium (playwright-core brings no browser); CI never skips them.
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# node-pty (the daemon's terminal streams) is compiled at install by node-gyp.
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
# The example hooks' test lints them; CI never skips it.
command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
# The network-namespace test kit (test-kit netns.ts); ip lives in /usr/sbin, off a user's PATH.
command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || missing+=(iproute2)
# The provision_cmd tests run a real sshd (in /usr/sbin, off a user's PATH) and drive it with ssh.
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v ssh >/dev/null 2>&1 || missing+=(openssh-client)
# The docker backend's tests run real containers on Debian's engine (dockerd in /usr/sbin).
[ -x /usr/sbin/dockerd ] || command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
# An engine "on another machine" (docker.remote test): dockerd entered into a network namespace by nsenter.
command -v nsenter >/dev/null 2>&1 || [ -x /usr/bin/nsenter ] || missing+=(util-linux)

if [ ${#missing[@]} -gt 0 ]; then
  for package in "${missing[@]}"; do echo "test dependencies: installing $package"; done
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
else
  echo "test dependencies: all present"
fi

# --- the Docker Engine ---------------------------------------------------------------
# No service manager is assumed (CI machines and containers have no systemd): a dockerd
# that does not answer is started in the background, its log in $SVC_DOCKERD_LOG.
docker_log="${SVC_DOCKERD_LOG:-${XDG_STATE_HOME:-$HOME/.local/state}/svc/dockerd.log}"
if docker info >/dev/null 2>&1; then
  echo "docker engine: answers"
else
  dockerd_bin=$(command -v dockerd || echo /usr/sbin/dockerd)
  mkdir -p "$(dirname "$docker_log")"
  echo "docker engine: starting $dockerd_bin (log: $docker_log)"
  as_root nohup "$dockerd_bin" >>"$docker_log" 2>&1 </dev/null &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "docker engine: dockerd did not answer within 60 s; $docker_log ends:" >&2; tail -n 20 "$docker_log" >&2; exit 1; }
  echo "docker engine: started"
fi

# --- the real agent CLIs -------------------------------------------------------------
pins_file=packages/test-kit/agent-clis.json
if command -v sha256sum >/dev/null 2>&1; then
  pins_sha=$(sha256sum "$pins_file" | cut -c1-12)
else
  pins_sha=$(shasum -a 256 "$pins_file" | cut -c1-12)
fi
clis_dir="${SVC_AGENT_CLIS:-${XDG_CACHE_HOME:-$HOME/.cache}/svc/agent-clis}/$pins_sha"

# One "<package> <version>" line per pin.
pins() {
  node -e 'for (const [name, version] of Object.entries(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")))) console.log(name, version)' "$pins_file"
}

# The path of a package's command in the cache (its package.json's bin: the one named
# after the package, or its only one).
bin_of() {
  node -e '
    const [dir, name] = process.argv.slice(1)
    const root = require("path").join(dir, "node_modules", name)
    const { bin } = JSON.parse(require("fs").readFileSync(require("path").join(root, "package.json"), "utf8"))
    const base = name.split("/").pop()
    const file = typeof bin === "string" ? bin : bin[base] ?? Object.values(bin)[0]
    console.log(require("path").join(root, file))
  ' "$clis_dir" "$1"
}

if [ -f "$clis_dir/.complete" ]; then
  echo "agent CLIs: all present in $clis_dir"
  exit 0
fi

pin_lines=$(pins)
specs=()
while read -r name version; do
  echo "agent CLIs: installing $name@$version"
  specs+=("$name@$version")
done <<<"$pin_lines"

# A directory without .complete is an interrupted or failed install: start it over.
rm -rf "$clis_dir"
mkdir -p "$clis_dir"
echo '{ "private": true }' >"$clis_dir/package.json"
npm install --prefix "$clis_dir" --save-exact --no-audit --no-fund --loglevel=error "${specs[@]}"

# Install scripts cannot be relied on (npm 11 warns of those its allowScripts does not
# cover; ignore-scripts skips them): Claude Code's and opencode's copy the platform's native
# binary, an optional dependency npm did install, over bin/claude.exe and bin/opencode.exe
# (until then opencode's says only that its postinstall did not run), so run them by hand.
(cd "$clis_dir/node_modules/@anthropic-ai/claude-code" && node install.cjs)
(cd "$clis_dir/node_modules/opencode-ai" && node postinstall.mjs)

while read -r name version; do
  bin=$(bin_of "$name")
  reported=$("$bin" --version </dev/null 2>&1) || { echo "agent CLIs: $bin --version failed: $reported" >&2; exit 1; }
  case " $reported " in
    *[!0-9.]"$version"[!0-9.]*) echo "agent CLIs: $name $version ($bin)" ;;
    *) echo "agent CLIs: $bin --version says '$reported', not $version" >&2; exit 1 ;;
  esac
done <<<"$pin_lines"

touch "$clis_dir/.complete"
echo "agent CLIs: installed in $clis_dir"
