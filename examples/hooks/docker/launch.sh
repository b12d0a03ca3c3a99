#!/usr/bin/env bash
# svc launch_cmd: runs the session's workspace in a Docker container named svc-<slug>,
# its agent-server published on a loopback port of this machine. Prints only
# {"url":"http://127.0.0.1:<port>","token":"..."}; progress goes to stderr.
# The image (SVC_HOOK_IMAGE) must hold sh, git, node 20+, tmux and svc on PATH, and
# whatever the repository's clone needs (credentials for a private origin).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$(dirname "$0")/../lib.sh"

image=${SVC_HOOK_IMAGE:-registry.example.com/svc-workspace:latest}
port=${SVC_AGENT_PORT:-7420}

parse_hook_args "$@"
require_launch_args
container="svc-$name"

workspace_logs() { docker logs "$container"; }
workspace_stopped() {
  case "$(docker inspect --format '{{.State.Status}}' "$container" 2>/dev/null)" in
    exited | dead) return 0 ;;
    *) return 1 ;;
  esac
}

echo "starting container $container from $image" >&2
# -e NAME passes the value from this environment, so the origin URL (which may carry
# credentials) stays off docker's command line.
export SVC_REPO=$repo SVC_BRANCH=$branch SVC_BASE=$base SVC_RESTORE=$restore SVC_PORT=$port SVC_WORKSPACE=/workspace
docker run --detach --name "$container" \
  --label "svc.slug=$name" --label "svc.title=$title" \
  --publish "127.0.0.1::$port" \
  -e SVC_REPO -e SVC_BRANCH -e SVC_BASE -e SVC_RESTORE -e SVC_PORT -e SVC_WORKSPACE \
  --entrypoint sh "$image" -c "$WORKSPACE_SCRIPT" >&2

token=$(await_token)
# `docker port` answers "127.0.0.1:<host port>".
published=$(docker port "$container" "$port/tcp" | head -n 1)
host_port=${published##*:}
[[ $host_port =~ ^[0-9]+$ ]] || die "docker port gave no host port for $port/tcp: '$published'"
print_endpoint "http://127.0.0.1:$host_port" "$token"
