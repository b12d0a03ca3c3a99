import { existsSync } from 'node:fs'
import { commandLineOf, commandWords, repoIdOf } from '@svc/core'
import { fail, note, pass, type Check } from './check.js'
import type { Catalog } from './catalog.js'
import { output, versionIn } from './run.js'

/**
 * Each known agent program: installed (as svc would run it, program_overrides applied),
 * its version, and the profile its screens are read with. Only the default program
 * missing is a failure: nobody installs every agent.
 */
export async function programChecks(catalog: Catalog): Promise<Check[]> {
  const listed = await catalog.programs()
  return Promise.all(
    listed.programs.map(async ({ name, available, profile }) => {
      const commandLine = commandLineOf(name, catalog.settings.program_overrides)
      const isDefault = name === listed.default
      const label = `agent ${name}${isDefault ? ' (default)' : ''}`
      if (!available) {
        const detail = `${commandLine} is not on PATH`
        const remedy = `install it, set program_overrides.${name}, or pick another default_program`
        return isDefault ? fail(label, detail, remedy) : note(label, detail)
      }
      const [executable = name] = commandWords(commandLine)
      const version = versionIn(await output(executable, ['--version'])) ?? 'version unknown'
      return pass(label, `${version}, ${profile ? `profile ${profile}` : 'no profile: read as any screen'}`)
    }),
  )
}

/** Each registered project: is it still there, and can its default backend run sessions. */
export async function backendChecks(catalog: Catalog): Promise<Check[]> {
  const roots = await catalog.projects()
  return Promise.all(
    roots.map(async (root) => {
      const name = `project ${root}`
      if (!existsSync(root)) return fail(name, 'its checkout is gone', `svc projects remove --repo-id ${repoIdOf(root)}`)
      let listed
      try {
        listed = await catalog.backends(root)
      } catch (error) {
        return fail(name, (error as Error).message, `fix it, or unregister it: svc projects remove ${root}`)
      }
      const each = listed.backends.map((backend) => `${backend.name} ${backend.status}${backend.reason && backend.name === listed.default ? ` (${backend.reason})` : ''}`)
      const detail = `default backend ${listed.default}; ${each.join(', ')}`
      return listed.default_status === 'available' ? pass(name, detail) : fail(name, detail, 'fix what the reason says, or set another backend for it')
    }),
  )
}
