// Writes tests/fixtures/gamedig-games.tsv: every game id of the gamedig npm package's games
// list, with the facts our presets are checked against (tests/games_coverage.rs).
//
//   mkdir -p /tmp/gd && (cd /tmp/gd && npm install gamedig@5.3.3)
//   node .ci/gamedig/games-tsv.mjs /tmp/gd/node_modules/gamedig > tests/fixtures/gamedig-games.tsv
//
// query_port is gamedig's own rule: `port_query` if given, else `port` + `port_query_offset`
// (the first offset where it lists several), else `port`. Empty when gamedig names no port.
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

const dir = process.argv[2]
if (!dir) throw new Error('usage: node games-tsv.mjs <path to node_modules/gamedig>')
const pkg = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'))
const { games } = await import(pathToFileURL(`${dir}/lib/games.js`).href)

const clean = (s) => String(s ?? '').replace(/[\t\n]/g, ' ')
const rows = []
for (const [id, g] of Object.entries(games)) {
  const o = g.options
  let offset = o.port_query_offset
  if (Array.isArray(offset)) offset = offset[0]
  let query = o.port_query ?? (o.port !== undefined ? o.port + (offset ?? 0) : '')
  rows.push([id, clean(g.name), o.protocol, query, o.port ?? '', g.extra?.old_id ?? ''].join('\t'))
}
rows.sort()
console.log(`# Generated from gamedig ${pkg.version}'s games list (lib/games.js) by .ci/gamedig/games-tsv.mjs; do not edit.`)
console.log('# query_port: port_query, else port + port_query_offset (the first of several), else port.')
console.log(['id', 'name', 'protocol', 'query_port', 'game_port', 'old_id'].join('\t'))
for (const r of rows) console.log(r)
