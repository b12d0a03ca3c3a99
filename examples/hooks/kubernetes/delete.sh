#!/usr/bin/env bash
# svc delete_cmd: stops the port-forward and deletes the pod svc-<slug> made by
# launch.sh. Deleting what is already gone succeeds.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$(dirname "$0")/../lib.sh"

state_dir=${SVC_HOOK_STATE_DIR:-${TMPDIR:-/tmp}/svc-hooks-kubernetes}

parse_hook_args "$@"
pod="svc-$name"

pid_file="$state_dir/$name.forward.pid"
if [ -f "$pid_file" ]; then
  pid=$(cat "$pid_file")
  # Only a port-forward: after a reboot the pid may belong to something else.
  if ps -p "$pid" -o args= 2>/dev/null | grep -q port-forward; then
    kill "$pid"
  fi
  rm -f "$pid_file" "$state_dir/$name.forward.log"
fi

kubectl ${SVC_HOOK_NAMESPACE:+--namespace "$SVC_HOOK_NAMESPACE"} \
  delete pod "$pod" --ignore-not-found --wait=false >&2
