/** How the home daemon reaches one hook session on its remote. */
export interface RemoteLink {
  homeId: string      // the session id on the home daemon
  remoteId: string    // the session id on the remote agent-server
  endpoint: string    // the remote's base URL, e.g. http://10.1.2.2:41234
  token: string       // bearer token (never logged)
}
