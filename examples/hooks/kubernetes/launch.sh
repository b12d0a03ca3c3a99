#!/usr/bin/env bash
# svc launch_cmd: runs the session's workspace in a Kubernetes pod named svc-<slug> and
# forwards a loopback port of this machine to its agent-server (kubectl port-forward,
# left running in the background until delete.sh). Prints only
# {"url":"http://127.0.0.1:<port>","token":"..."}; progress goes to stderr.
# The image (SVC_HOOK_IMAGE) must hold sh, git, node 20+, tmux and svc on PATH, and
# whatever the repository's clone needs (credentials for a private origin).
# SVC_HOOK_NAMESPACE picks a namespace; kubectl's current context is used otherwise.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$(dirname "$0")/../lib.sh"

image=${SVC_HOOK_IMAGE:-registry.example.com/svc-workspace:latest}
port=${SVC_AGENT_PORT:-7420}
state_dir=${SVC_HOOK_STATE_DIR:-${TMPDIR:-/tmp}/svc-hooks-kubernetes}

parse_hook_args "$@"
require_launch_args
pod="svc-$name"

k() { kubectl ${SVC_HOOK_NAMESPACE:+--namespace "$SVC_HOOK_NAMESPACE"} "$@"; }
workspace_logs() { k logs "$pod"; }
# A pod that ended, or whose image cannot be pulled, will not start the agent-server.
workspace_stopped() {
  case "$(k get pod "$pod" --output 'jsonpath={.status.phase} {.status.containerStatuses[0].state.waiting.reason}' 2>/dev/null)" in
    Failed* | Succeeded* | *ErrImagePull | *ImagePullBackOff | *InvalidImageName | *CreateContainerConfigError) return 0 ;;
    *) return 1 ;;
  esac
}

echo "starting pod $pod from $image" >&2
# --labels replaces kubectl's default run=<pod name> label, whose value is capped at 63 bytes.
k run "$pod" --image "$image" --restart Never --port "$port" \
  --labels app.kubernetes.io/managed-by=svc --annotations "svc/title=$title" \
  --env "SVC_REPO=$repo" --env "SVC_BRANCH=$branch" --env "SVC_BASE=$base" --env "SVC_RESTORE=$restore" \
  --env "SVC_PORT=$port" --env SVC_WORKSPACE=/workspace \
  --command -- sh -c "$WORKSPACE_SCRIPT" >&2

token=$(await_token)

# The forward outlives this script (svc reads its stdout to the end): nothing of it may
# stay on our stdout. delete.sh stops it by the pid kept here.
mkdir -p "$state_dir"
chmod 700 "$state_dir"
forward_log="$state_dir/$name.forward.log"
nohup kubectl ${SVC_HOOK_NAMESPACE:+--namespace "$SVC_HOOK_NAMESPACE"} \
  port-forward "pod/$pod" ":$port" --address 127.0.0.1 </dev/null >"$forward_log" 2>&1 &
echo "$!" >"$state_dir/$name.forward.pid"

# kubectl picks the local port and says "Forwarding from 127.0.0.1:<port> -> <pod port>".
local_port=''
for _ in $(seq 1 30); do
  local_port=$(sed -n 's/^Forwarding from 127\.0\.0\.1:\([0-9][0-9]*\) .*/\1/p' "$forward_log" | head -n 1)
  [ -z "$local_port" ] || break
  kill -0 "$!" 2>/dev/null || { cat "$forward_log" >&2; die "kubectl port-forward ended (its output is above)"; }
  sleep 0.5
done
[ -n "$local_port" ] || die "kubectl port-forward did not say its local port within 15 s"
print_endpoint "http://127.0.0.1:$local_port" "$token"
