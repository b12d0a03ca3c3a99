// Draws the app's mark (a prompt chevron and a cursor) as the SVG favicon and the PNG
// icons the web app manifest and iOS ask for. The outputs are committed under public/;
// run `node scripts/icons.mjs` in packages/web after changing the mark.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Resvg } from '@resvg/resvg-js'

const PUBLIC = join(dirname(fileURLToPath(import.meta.url)), '..', 'public')
const BACKGROUND = '#0f172a'

// Within the maskable safe zone (a circle of 40% of the size around the centre), so
// launchers may crop the full-bleed variant to any shape.
const GLYPH = `<g fill="none" stroke-linecap="round" stroke-linejoin="round" stroke-width="44">
  <polyline points="150,170 250,256 150,342" stroke="#22c55e"/>
  <line x1="290" y1="342" x2="370" y2="342" stroke="#e2e8f0"/>
</g>`

/** A rounded tile with transparent corners ("any"), or a full-bleed square (maskable, iOS). */
function svg(fullBleed) {
  const tile = fullBleed ? `<rect width="512" height="512" fill="${BACKGROUND}"/>` : `<rect x="24" y="24" width="464" height="464" rx="104" fill="${BACKGROUND}"/>`
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">\n${tile}\n${GLYPH}\n</svg>\n`
}

function png(name, source, size) {
  const path = join(PUBLIC, 'icons', name)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, new Resvg(source, { fitTo: { mode: 'width', value: size } }).render().asPng())
}

writeFileSync(join(PUBLIC, 'icon.svg'), svg(false))
png('icon-192.png', svg(false), 192)
png('icon-512.png', svg(false), 512)
png('icon-maskable-512.png', svg(true), 512)
png('apple-touch-icon.png', svg(true), 180)
