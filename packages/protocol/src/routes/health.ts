import { Empty } from '../schemas/common.js'
import { AuthInfoResponse, HealthResponse } from '../schemas/health.js'
import type { RouteDef } from './define.js'

export const healthRoutes = [
  {
    name: 'Health',
    method: 'GET',
    path: '/v1/health',
    group: 'health',
    summary: 'Liveness probe: version, boot id, warm-up phase and bound listeners; answers during warm-up',
    request: Empty,
    response: HealthResponse,
    public: true,
    required: [],
  } satisfies RouteDef<'Health', 'health', typeof Empty, typeof HealthResponse>,
  {
    name: 'AuthInfo',
    method: 'GET',
    path: '/v1/auth-info',
    group: 'health',
    summary: 'Whether this listener wants the token from this caller; answered without one (for a login page)',
    request: Empty,
    response: AuthInfoResponse,
    // Served for the web login, not part of the API document's catalog.
    public: false,
    required: [],
  } satisfies RouteDef<'AuthInfo', 'health', typeof Empty, typeof AuthInfoResponse>,
] as const
