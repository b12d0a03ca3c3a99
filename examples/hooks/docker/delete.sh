#!/usr/bin/env bash
# svc delete_cmd: removes the container svc-<slug> made by launch.sh. Removing one that
# is already gone succeeds.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$(dirname "$0")/../lib.sh"

parse_hook_args "$@"
container="svc-$name"

if docker inspect --type container "$container" >/dev/null 2>&1; then
  docker rm --force "$container" >&2
else
  echo "container $container is already gone" >&2
fi
