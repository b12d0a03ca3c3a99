import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { defaultTag, devcontainerBase, imageDockerfile, parseJsonc } from './image-recipe.js'

const made: string[] = []
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))))

async function repoWith(devcontainer: string | undefined): Promise<string> {
  const repo = await mkdtemp(join(tmpdir(), 'svc-recipe-'))
  made.push(repo)
  if (devcontainer !== undefined) {
    await mkdir(join(repo, '.devcontainer'))
    await writeFile(join(repo, '.devcontainer', 'devcontainer.json'), devcontainer)
  }
  return repo
}

describe("an image's recipe", () => {
  it('reads devcontainer.json with comments and trailing commas, strings left whole', () => {
    expect(parseJsonc('{\n  // the image\n  "image": "a//b", /* old: "x" */\n  "n": [1, 2,],\n}')).toEqual({ image: 'a//b', n: [1, 2] })
  })

  it("starts from the devcontainer's image, or builds its Dockerfile first, relative to .devcontainer", async () => {
    expect(devcontainerBase(await repoWith(undefined))).toBeUndefined()
    const byImage = await repoWith('{ "image": "mcr.example/dev:1" }')
    expect(devcontainerBase(byImage)).toMatchObject({ image: 'mcr.example/dev:1' })
    const byFile = await repoWith('{ "build": { "dockerfile": "Dockerfile", "context": ".." } }')
    expect(devcontainerBase(byFile)).toMatchObject({ dockerfile: join(byFile, '.devcontainer', 'Dockerfile'), context: byFile })
    const neither = await repoWith('{ "name": "x" }')
    expect(() => devcontainerBase(neither)).toThrow(/names neither an image nor a build.dockerfile; pass --from IMAGE/)
    const broken = await repoWith('{ nope')
    expect(() => devcontainerBase(broken)).toThrow(/is not valid JSON/)
  })

  it('is tagged after the repository folder', () => {
    expect(defaultTag('/src/My Parser')).toBe('svc-my-parser:latest')
    expect(defaultTag(undefined)).toBe('svc-agent:latest')
  })

  it("adds git and tmux from the base's package manager and this machine's node when the base has none", () => {
    const recipe = imageDockerfile('debian:12', true)
    expect(recipe).toMatch(/^FROM debian:12\nCOPY svc-node \/usr\/local\/lib\/svc-node\/node\n/)
    expect(recipe).toContain('apt-get install -y --no-install-recommends $need')
    expect(imageDockerfile('debian:12', false)).not.toContain('COPY')
  })
})
