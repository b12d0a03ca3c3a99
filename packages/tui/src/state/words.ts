// The words of states, idle reasons, ages and projects are shared with the web UI and the CLI: see @svc/protocol's words.ts and state-look.ts.
export { age, duration, idleWords, killWords, projectName, remoteWords, stateLook } from '@svc/protocol'
