import { mkdir, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** Where the profiles' unit tests read the real CLIs' screens (core/src/agents/fixtures/<program>-<version>/). */
const FIXTURES = fileURLToPath(new URL('../../../core/src/agents/fixtures/', import.meta.url))

/**
 * With SVC_CAPTURE_SCREENS set, keeps a screen a real CLI drew as a profile fixture named
 * for the version that drew it: how the fixtures are renewed when a pin moves
 * (`SVC_CAPTURE_SCREENS=1 pnpm exec vitest run packages/daemon/test/agents.*`).
 */
export async function captureScreen(program: string, version: string, name: string, screen: string): Promise<void> {
  if (!process.env.SVC_CAPTURE_SCREENS) return
  const dir = `${FIXTURES}${program}-${version}/`
  await mkdir(dir, { recursive: true })
  await writeFile(`${dir}${name}.txt`, screen)
}
