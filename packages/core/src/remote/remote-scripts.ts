import { createHash } from 'node:crypto'
import { MAX_SOCKET_PATH_BYTES, SNAPSHOT_MESSAGE } from '@svc/protocol'
import { shellQuote } from '../infra/launcher.js'
import { commandWords } from '../infra/command-words.js'

/** The start script's exit when it refused before making anything on the host (svc, git or tmux missing). */
export const NOTHING_MADE_EXIT = 10
/** Its exit when the slug's workspace is already on the host: that is not svc's to remove. */
export const WORKSPACE_TAKEN_EXIT = 11

/** The stop script's exit when the workspace holds work it could not put on origin: it stays on the host. */
export const KEPT_EXIT = 14

/** The longest socket name an agent server keeps in its home. */
const HOME_SOCKET = 'daemon-http.sock'

/**
 * Where a slug's workspace and agent-server home are on the host, as shell assignments:
 * `~/svc-workspaces/<slug>` and `~/svc-workspaces/<slug>.home`, unless that home's
 * socket path would pass the Unix socket limit (slugs run to 200 bytes): then the home
 * is `~/svc-workspaces/h-<12 hex of the slug's sha256>.home`. Both scripts compute the
 * same, so the stop script finds what the start script made.
 */
export function places(slug: string): string {
  const short = `h-${createHash('sha256').update(slug).digest('hex').slice(0, 12)}`
  return `base="$HOME/svc-workspaces"
ws="$base/"${shellQuote(slug)}
home="$base/"${shellQuote(`${slug}.home`)}
fits() { [ "$(printf '%s' "$1/${HOME_SOCKET}" | wc -c)" -le ${MAX_SOCKET_PATH_BYTES} ]; }
fits "$home" || home="$base/"${shellQuote(`${short}.home`)}
`
}

export interface StartScript {
  slug: string
  repo: string
  branch: string
  /** What a new branch is made from (origin's branch of that name); origin's default branch without it. */
  base?: string
  /** The branch must be on origin already (a restore). */
  restore: boolean
  /** `remote_svc_command`, as the host's shell reads it. */
  svc: string
  /** The agent server's --listen: loopback, any port, on a host reached over ssh (the default); all addresses and a fixed port in a container, which publishes it. */
  listen?: string
  /**
   * A container's: the file its keeper (see keeperCommand) waits for and runs, now and
   * after every restart of the container, so the agent server comes back with it. A host
   * starts it detached instead.
   */
  serve?: string
}

/** The container's main process: runs the serve file once it is there (at every start of the container), then idles so the container outlives a stopped agent server. */
export function keeperCommand(serve: string): string {
  const file = shellQuote(serve)
  // Polled often: a create waits on it, and the loop ends once the file is there.
  return `while [ ! -f ${file} ]; do sleep 0.05; done; sh ${file}; exec tail -f /dev/null`
}

/**
 * Run by `sh` on the host: checks svc, git and tmux are there, clones the repository at
 * the branch into the slug's workspace (the branch made from `base`, or the default
 * branch, when origin has none yet), starts `svc agent-server` detached from the ssh session, waits
 * for its `{url, token}` line and prints only that on stdout (read over the ssh
 * channel, never a command line). Progress and failures, worded to say what to fix, go
 * to stderr.
 */
export function startScript({ slug, repo, branch, base, restore, svc, listen = '127.0.0.1:0', serve }: StartScript): string {
  const [program = 'svc'] = commandWords(svc)
  const b = shellQuote(branch)
  const server = `${svc} agent-server --home "$home" --workspace "$ws" --listen ${shellQuote(listen)}`
  // The keeper runs the agent server in the container's own process tree; a host's outlives the ssh session.
  const launch = serve
    ? `cat >${shellQuote(`${serve}.tmp`)} <<SERVE
echo \\$\\$ >"$home/agent-server.pid"
exec ${server} </dev/null >"$home/endpoint" 2>"$home/agent-server.log"
SERVE
mv ${shellQuote(`${serve}.tmp`)} ${shellQuote(serve)} || exit 1`
    : `detach=
command -v setsid >/dev/null 2>&1 && detach=setsid
nohup $detach ${server} </dev/null >"$home/endpoint" 2>"$home/agent-server.log" 3>&- &
echo "$!" >"$home/agent-server.pid"`
  return `exec 3>&1 1>&2
${places(slug)}
refuse() { printf '%s' "$@"; printf '\\n'; exit ${NOTHING_MADE_EXIT}; }
fail() { printf '%s' "$@"; printf '\\n'; exit 13; }
command -v ${program} >/dev/null 2>&1 || refuse 'svc is not installed on this host: command -v '${shellQuote(program)}" finds nothing on the PATH an ssh command gets ($PATH); install svc there, or set the global remote_svc_command to its full path"
for tool in git tmux; do
  command -v "$tool" >/dev/null 2>&1 || refuse "$tool is not installed on this host; svc agent-server needs node 20+, git and tmux"
done
fits "$home" || refuse "the agent server's home $home is too long for its socket (over ${MAX_SOCKET_PATH_BYTES} bytes with /${HOME_SOCKET}); give the ssh user a shorter HOME"
if [ -e "$ws" ] || [ -e "$home" ]; then
  printf '%s\\n' "$ws already exists on this host (another session's workspace?); remove it there, or choose another title"
  exit ${WORKSPACE_TAKEN_EXIT}
fi
mkdir -p "$base" || exit 1
git clone -q -- ${shellQuote(repo)} "$ws" || fail 'could not clone '${shellQuote(repo)}' on this host'
cd "$ws" || exit 1
if git rev-parse --verify --quiet refs/remotes/origin/${b} >/dev/null; then
  git checkout -q -B ${b} origin/${b} || exit 1
elif [ ${restore ? 1 : 0} = 1 ]; then
  fail 'branch '${b}' is not on origin: nothing to restore'
else
  git checkout -q --no-track -b ${b} ${base ? `origin/${shellQuote(base)}` : ''} || fail 'could not make branch '${b}${base ? `' from '${shellQuote(base)}' (is it on origin?)'` : ''}
fi
(umask 077 && mkdir -p "$home") || exit 1
${launch}
waited=0
until grep -q '}' "$home/endpoint" 2>/dev/null; do
  pid=$(cat "$home/agent-server.pid" 2>/dev/null)
  if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
    printf '%s\\n' "svc agent-server exited before it was ready; $home/agent-server.log ends:"
    tail -n 8 "$home/agent-server.log"
    exit 12
  fi
  waited=$((waited + 1))
  [ "$waited" -le 600 ] || fail "svc agent-server printed no endpoint within 60 s; see $home/agent-server.log"
  sleep 0.1
done
cat "$home/endpoint" >&3
`
}

export interface StopScript {
  slug: string
  /** The session's branch, which work origin lacks is pushed to. */
  branch: string
  /** Remove the workspace whatever it holds (`kill --discard`). */
  discard: boolean
}

/** How long a stop waits for another stop of the same slug, in tenths of a second (the host's SVC_STOP_WAIT_TENTHS, for tests). */
const STOP_WAIT_TENTHS = 1800

/**
 * A stop holds `<slug>.stopping` (a directory with its pid) from its start to its exit. A
 * home killed mid-stop leaves its script running on the host, and the stop the restarted
 * home runs must not race it (both committing, fetching and removing, one ending with the
 * workspace half removed): it waits for that one's end, 3 minutes at most, then goes on
 * without the lock. A holder that is gone left its lock behind: that is taken over.
 */
function oneStopAtATime(slug: string): string {
  return `lock="$base/"${shellQuote(`${slug}.stopping`)}
mkdir -p "$base" 2>/dev/null
waited=0
held=
while [ "$waited" -le "\${SVC_STOP_WAIT_TENTHS:-${STOP_WAIT_TENTHS}}" ]; do
  if mkdir "$lock" 2>/dev/null; then held=1; break; fi
  waited=$((waited + 1))
  holder=$(cat "$lock/pid" 2>/dev/null)
  if [ -n "$holder" ] && ! kill -0 "$holder" 2>/dev/null; then rm -rf "$lock"; else sleep 0.1; fi
done
# Only the stop that took the lock marks and releases it: one that gave up waiting leaves the holder's.
if [ -n "$held" ]; then
  echo $$ >"$lock/pid" 2>/dev/null
  trap 'rm -rf "$lock"' EXIT
fi`
}

/**
 * Run by `sh` on the host: stops the slug's agent server (its process group: TERM, then
 * KILL after 10 s) and its tmux server, so nothing writes on; then, unless discarding,
 * puts on origin what origin lacks (uncommitted work as the snapshot commit, HEAD pushed
 * to the session's branch, never forced), the agent server's push done by plain git for
 * one that no longer answers. Only then are the workspace and home removed; work that
 * cannot reach origin keeps them, and the script exits KEPT_EXIT saying why. One stop of
 * a slug runs at a time (oneStopAtATime).
 */
export function stopScript({ slug, branch, discard }: StopScript): string {
  const b = shellQuote(branch)
  return `${places(slug)}
${oneStopAtATime(slug)}
for h in "$home" "$base/"${shellQuote(`${slug}.home`)}; do
  [ -f "$h/agent-server.pid" ] || continue
  pid=$(cat "$h/agent-server.pid")
  kill -TERM -"$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  waited=0
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
  kill -KILL -"$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
  tmux -S "$h/tmux.sock" kill-server 2>/dev/null
done
if [ ${discard ? 1 : 0} = 0 ] && [ -d "$ws/.git" ]; then
  keep() { printf '%s\n' "$*" >&2; exit ${KEPT_EXIT}; }
  cd "$ws" || keep "cannot enter $ws"
  export GIT_TERMINAL_PROMPT=0
  who=
  { git var GIT_AUTHOR_IDENT && git var GIT_COMMITTER_IDENT; } >/dev/null 2>&1 || who='-c user.name=svc -c user.email=svc@localhost'
  if [ -n "$(git status --porcelain --untracked-files=all)" ]; then
    git add --all && git $who commit -q --no-verify -m ${shellQuote(SNAPSHOT_MESSAGE)} || keep "could not commit the uncommitted work in $ws"
  fi
  git fetch -q origin || keep "could not reach origin from $ws to check what it lacks"
  if [ -n "$(git rev-list -n 1 HEAD --not --remotes=origin)" ]; then
    git push -q origin HEAD:refs/heads/${b} || keep "could not push $ws to branch "${b}" of origin"
  fi
  cd "$base" || exit 1
fi
# Only a removal that happened says so: a workspace left behind must not read as gone.
rm -rf "$ws" "$home" "$base/"${shellQuote(`${slug}.home`)} || exit 1
exit 0
`
}
