# shellcheck shell=bash
# What the example hooks share: their arguments, the workspace's start-up script, and
# reading and printing the agent-server's endpoint. Sourced by launch.sh and delete.sh.

die() {
  printf '%s: %s\n' "${0##*/}" "$*" >&2
  exit 1
}

# Sets name, title, repo, branch, base and restore (0 or 1) from svc's arguments:
# --name <slug> --title <title> --repo <origin URL> --branch <branch> [--base <branch>] [--restore].
# shellcheck disable=SC2034  # the sourcing script reads them
parse_hook_args() {
  name='' title='' repo='' branch='' base='' restore=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --name | --title | --repo | --branch | --base)
        [ $# -ge 2 ] || die "$1 needs a value"
        printf -v "${1#--}" '%s' "$2"
        shift 2
        ;;
      --name=* | --title=* | --repo=* | --branch=* | --base=*)
        local option=${1%%=*}
        printf -v "${option#--}" '%s' "${1#*=}"
        shift
        ;;
      --restore)
        restore=1
        shift
        ;;
      *) die "unknown argument: $1" ;;
    esac
  done
  # svc's slugs are [a-z0-9-], trimmed of '-': valid in pod and container names as they are.
  [[ $name =~ ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$ ]] || die "--name must be a slug ([a-z0-9-]), got '$name'"
}

require_launch_args() {
  [ -n "$repo" ] || die "--repo is required"
  [ -n "$branch" ] || die "--branch is required"
}

# Run by `sh` inside the workspace (pod or container), with SVC_REPO, SVC_BRANCH, SVC_BASE,
# SVC_RESTORE, SVC_WORKSPACE and SVC_PORT in its environment: clones the repository at the
# branch (made from SVC_BASE, else the default branch, when origin has none yet; a restore requires it)
# and starts svc agent-server, whose `{url, token}` line is the only thing on stdout.
# shellcheck disable=SC2034  # the sourcing script passes it to the workspace
WORKSPACE_SCRIPT=$(
  cat <<'SCRIPT'
set -eu
{
  git clone -- "$SVC_REPO" "$SVC_WORKSPACE"
  cd "$SVC_WORKSPACE"
  if git rev-parse --verify --quiet "refs/remotes/origin/$SVC_BRANCH" >/dev/null; then
    git checkout -B "$SVC_BRANCH" "origin/$SVC_BRANCH"
  elif [ "$SVC_RESTORE" = 1 ]; then
    echo "branch $SVC_BRANCH is not on origin: nothing to restore" >&2
    exit 1
  elif [ -n "${SVC_BASE:-}" ]; then
    git checkout --no-track -b "$SVC_BRANCH" "origin/$SVC_BASE"
  else
    git checkout -b "$SVC_BRANCH"
  fi
} >&2
exec svc agent-server --workspace "$SVC_WORKSPACE" --listen "0.0.0.0:$SVC_PORT"
SCRIPT
)

# Reads a workspace's log on stdin; prints the token of agent-server's `{url, token}` line.
# Fails when that line is not there (yet).
agent_server_token() {
  node -e '
    let log = ""
    process.stdin.setEncoding("utf8").on("data", (chunk) => (log += chunk)).on("end", () => {
      for (const line of log.split("\n")) {
        try {
          const endpoint = JSON.parse(line)
          if (typeof endpoint?.url === "string" && typeof endpoint.token === "string") return process.stdout.write(endpoint.token)
        } catch {}
      }
      process.exitCode = 1
    })'
}

# Waits for agent-server's endpoint in the workspace's log and prints its token. The
# sourcing script defines workspace_logs (prints the log) and workspace_stopped (true once
# the workspace can no longer start). Gives up before svc's own 120 s limit.
await_token() {
  local limit=${SVC_HOOK_TIMEOUT:-110} token
  local deadline=$((SECONDS + limit))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if token=$(workspace_logs 2>/dev/null | agent_server_token); then
      printf '%s' "$token"
      return
    fi
    if workspace_stopped; then
      workspace_logs >&2 || true
      die "the workspace stopped before svc agent-server was ready (its log is above)"
    fi
    sleep 1
  done
  die "svc agent-server did not report its endpoint within $limit s"
}

# The one line svc reads on stdout. The token goes through the environment, never a
# command line, and JSON.stringify escapes it.
print_endpoint() {
  ENDPOINT_URL=$1 ENDPOINT_TOKEN=$2 node -e '
    process.stdout.write(JSON.stringify({ url: process.env.ENDPOINT_URL, token: process.env.ENDPOINT_TOKEN }) + "\n")'
}
