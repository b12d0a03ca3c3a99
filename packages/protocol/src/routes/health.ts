import { Empty } from '../schemas/common.js'
import { HealthResponse } from '../schemas/health.js'
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
  } satisfies RouteDef<'Health', 'health', typeof Empty, typeof HealthResponse>,
] as const
