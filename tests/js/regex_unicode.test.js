// regex_unicode.test.js - \p{..} / \P{..} in `pattern` and `format: "regex"`,
// with V8 (`new RegExp(p, 'u')`) as the oracle, for every property name and
// alias toolgate knows: General_Category, the binary properties of ECMA-262,
// Script and Script_Extensions.
//
// The tables are read from src/regex/regex_unicode.c (what the wasm build
// compiled), then:
//   1. every set equals V8's over all of U+0000..U+10FFFF (one scan per kind
//      with a `v`-mode class of the symmetric differences; lone surrogates
//      one by one);
//   2. toolgate's verdicts for ^\p{X}$, ^\P{X}$, ^[\p{X}]$ and ^[^\p{X}]$
//      equal V8's on every range boundary of X's set, +-1, and random code
//      points (a surrogate code point cannot be in a JSON string toolgate
//      takes, so none is sampled);
//   3. names: every one compiles in V8 and in toolgate, and names near them
//      (other case, other spelling, other property, non-ECMA-262
//      properties) are refused by both, by `pattern` and `format: "regex"`.
// The tables' Unicode version must be Node's (process.versions.unicode):
// on another Node the comparisons with V8 are skipped, saying why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createToolRuntime } from 'toolgate';
import { repoRoot } from './helpers.js';

const rt = await createToolRuntime();
const fmt = rt.compileSchema({ format: 'regex' }, { formats: 'assert' });

// ---- the tables, as compiled ------------------------------------------------
const src = readFileSync(path.join(repoRoot, 'src', 'regex', 'regex_unicode.c'), 'utf8');
const tablesVersion = src.match(/tg_unicode_version\[\] = "([\d.]+)"/)[1];
const blob = Uint8Array.from(
  src.match(/static const uint8_t blob\[\d+\] = \{([^}]*)\}/)[1].split(',').filter((x) => x.trim()).map(Number),
);
const sets = [...src.match(/static const uint32_t sets\[\]\[2\] = \{([\s\S]*?)\n\};/)[1].matchAll(/\{(\d+), (\d+)\}/g)].map(
  (m) => [Number(m[1]), Number(m[2])],
);
const names = [...src.matchAll(/\{"([^"]+)", TG_UPROP_(GC|BINARY|SCRIPT|SCX), (\d+)\}/g)].map((m) => ({
  name: m[1],
  kind: m[2],
  set: Number(m[3]),
}));

function decode([off, n]) {
  const out = [];
  let p = off, next = 0;
  const varint = () => {
    let v = 0, s = 0, b;
    do { b = blob[p++]; v += (b & 0x7f) * 2 ** s; s += 7; } while (b & 0x80);
    return v;
  };
  for (let i = 0; i < n; i++) {
    const lo = next + varint(), hi = lo + varint();
    out.push([lo, hi]);
    next = hi + 1;
  }
  return out;
}
const ranges = sets.map(decode);

// The ways each kind is written (the first is the one sampled in full).
const FORMS = {
  GC: (n) => [n, `gc=${n}`, `General_Category=${n}`],
  BINARY: (n) => [n],
  SCRIPT: (n) => [`sc=${n}`, `Script=${n}`],
  SCX: (n) => [`scx=${n}`, `Script_Extensions=${n}`],
};

const nodeUnicode = process.versions.unicode || '';
const skip = tablesVersion.startsWith(`${nodeUnicode}.`)
  ? false
  : `the tables are Unicode ${tablesVersion}, this Node's RegExp is Unicode ${nodeUnicode || '?'}: regenerate them (src/regex/gen_unicode_tables.mjs) for this Node`;

const v8ok = (p) => { try { new RegExp(p, 'u'); return true; } catch { return false; } };
const tgCompiles = (p) => { try { rt.compileSchema({ type: 'string', pattern: p }); return true; } catch { return false; } };
const isSurrogate = (c) => c >= 0xd800 && c <= 0xdfff;

// a deterministic PRNG (mulberry32), so a failure reproduces
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('the tables parse: one Unicode version, every kind, sorted disjoint ranges', () => {
  assert.match(tablesVersion, /^\d+\.\d+\.\d+$/);
  for (const k of ['GC', 'BINARY', 'SCRIPT', 'SCX']) assert.ok(names.some((n) => n.kind === k), k);
  assert.equal(names.filter((n) => n.kind === 'GC').length, 80);
  assert.ok(names.filter((n) => n.kind === 'BINARY').length >= 99);
  for (const rs of ranges) {
    assert.ok(rs.length > 0 && rs[rs.length - 1][1] <= 0x10ffff);
    for (let i = 0; i < rs.length; i++) {
      assert.ok(rs[i][0] <= rs[i][1]);
      if (i) assert.ok(rs[i][0] > rs[i - 1][1] + 1);
    }
  }
});

test('every set equals V8\'s over all code points', { skip }, () => {
  const hex = (c) => `\\u{${c.toString(16)}}`;
  const cls = (rs) => `[${rs.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]`;
  const parts = [];
  for (let c = 0; c <= 0x10ffff; c++) if (!isSurrogate(c)) parts.push(String.fromCodePoint(c));
  const all = parts.join('');
  const lone = [];
  for (let c = 0xd800; c <= 0xdfff; c++) lone.push(String.fromCharCode(c));
  // A class of every code point where some name's set and V8's differ: one
  // term per distinct set, and names sharing a set are compared with V8's
  // first name of it.
  const diffClass = (terms) => new RegExp(`[${terms.join('')}]`, 'gv');
  const mismatches = (re) => {
    const bad = [];
    let m;
    re.lastIndex = 0;
    while ((m = re.exec(all)) && bad.length < 10) bad.push(`U+${m[0].codePointAt(0).toString(16).toUpperCase()}`);
    const anchored = new RegExp(`^${re.source}$`, 'v');
    for (const s of lone) if (bad.length < 10 && anchored.test(s)) bad.push(`U+${s.charCodeAt(0).toString(16).toUpperCase()}`);
    return bad;
  };
  // the check finds a difference when there is one
  assert.deepEqual(mismatches(diffClass([`[\\p{Lu}--${cls([[0x41, 0x59]])}]`])).slice(0, 2), ['U+5A', 'U+C0']);
  assert.ok(mismatches(diffClass([`[\\p{Cs}--${cls([[0xd800, 0xdbff]])}]`])).includes('U+DC00'));
  for (const kind of ['GC', 'BINARY', 'SCRIPT', 'SCX']) {
    const first = new Map(), terms = [];
    for (const n of names.filter((x) => x.kind === kind)) {
      const p = `\\p{${FORMS[kind](n.name)[0]}}`;
      if (!first.has(n.set)) {
        first.set(n.set, p);
        const c = cls(ranges[n.set]);
        terms.push(`[${p}--${c}]`, `[${c}--${p}]`);
      } else {
        terms.push(`[${p}--${first.get(n.set)}]`, `[${first.get(n.set)}--${p}]`);
      }
    }
    const bad = mismatches(diffClass(terms));
    if (bad.length) {
      // name the sets that differ
      const which = [];
      for (const [set, p] of first) if (mismatches(diffClass([`[${p}--${cls(ranges[set])}]`, `[${cls(ranges[set])}--${p}]`])).length) which.push(p);
      assert.fail(`${kind}: toolgate's tables and V8 differ at ${bad.join(' ')} (${which.slice(0, 10).join(' ')})`);
    }
  }
});

// Code points to compare at: each range's ends +-1, and some at random.
function samplesOf(rs, rand, limit) {
  const out = new Set([0, 0x7f, 0x80, 0xffff, 0x10000, 0x10ffff]);
  let bounds = [];
  for (const [lo, hi] of rs) bounds.push(lo - 1, lo, hi, hi + 1);
  if (limit && bounds.length > limit) {
    const keep = [];
    for (let i = 0; i < limit; i++) keep.push(bounds[Math.floor(rand() * bounds.length)]);
    bounds = keep;
  }
  for (const c of bounds) out.add(c);
  for (let i = 0; i < 16; i++) out.add(Math.floor(rand() * 0x110000));
  return [...out].filter((c) => c >= 0 && c <= 0x10ffff && !isSurrogate(c));
}

// toolgate's verdict on each subject, many at once (an array schema whose
// errors, at most 1000 a call, name the items that failed)
function tgVerdicts(pattern, subjects) {
  const v = rt.compileSchema({ type: 'array', items: { type: 'string', pattern } });
  const out = [];
  for (let i = 0; i < subjects.length; i += 1000) {
    const chunk = subjects.slice(i, i + 1000);
    const r = v.validate(JSON.stringify(chunk), { maxErrors: chunk.length });
    assert.equal(r.jsonError, undefined);
    const failed = new Set(r.errors.map((e) => Number(e.instanceLocation.slice(1))));
    for (let j = 0; j < chunk.length; j++) out.push(!failed.has(j));
  }
  return out;
}

test('pattern: toolgate matches as V8 does for every name, on range boundaries +-1 and random code points', { skip }, (t) => {
  const rand = rng(20251124);
  let compared = 0;
  const diffs = [];
  for (const n of names) {
    const forms = FORMS[n.kind](n.name);
    const full = samplesOf(ranges[n.set], rand, 0);
    const some = samplesOf(ranges[n.set], rand, 256);
    const cases = [];
    forms.forEach((f, i) => {
      cases.push([`^\\p{${f}}$`, i === 0 ? full : some], [`^\\P{${f}}$`, some]);
    });
    cases.push([`^[\\p{${forms[0]}}]$`, some], [`^[^\\p{${forms[0]}}]$`, some], [`^[\\P{${forms[0]}}]$`, some],
      [`^[^\\P{${forms[0]}}\\u{10FFFF}]+$`, some]);
    for (const [p, cps] of cases) {
      const re = new RegExp(p, 'u');
      const subjects = cps.map((c) => String.fromCodePoint(c));
      const got = tgVerdicts(p, subjects);
      for (let i = 0; i < subjects.length; i++) {
        compared++;
        if (got[i] !== re.test(subjects[i]) && diffs.length < 20) diffs.push(`${p} on U+${cps[i].toString(16).toUpperCase()}: toolgate ${got[i]}`);
      }
    }
  }
  assert.deepEqual(diffs, []);
  assert.ok(compared > 100000, `${compared} verdicts compared`);
  t.diagnostic(`${compared} verdicts compared`);
});

test('pattern: properties in longer patterns (the reviewer\'s cases, classes mixing properties)', { skip }, () => {
  const cases = [
    ['^\\p{Alphabetic}+$', ['héllo', 'a1', 'x y', '😀', 'ǅungla', 'Ⅻ']],
    ['^[\\p{L}\\p{White_Space}]+$', ['héllo', 'a1', 'x y', '😀', '\u3000\u2028a']],
    ['\\p{Emoji}', ['héllo', 'a1', 'x y', '😀', '#', '\u00a9']],
    ['^\\p{Lowercase}', ['héllo', 'Héllo', 'ªb', '']],
    ['^\\p{ID_Start}\\p{ID_Continue}*$', ['héllo', 'a1', '1a', 'x y', '_a', 'a_\u00b7', '\u2118x']],
    ['^\\p{Extended_Pictographic}(\\u200d\\p{ExtPict})*$', ['😀', '👩\u200d💻', '👩\u200d', 'a']],
    ['^\\p{RI}{2}$', ['🇫🇷', '🇫', 'fr']],
    ['^[\\p{sc=Greek}\\p{scx=Grek}\\P{Any}]+$', ['αβγ', '\u0342', 'αa']],
    ['^(\\p{Lu}\\p{Ll}+)(\\s\\p{Lu}\\p{Ll}+)*$', ['Jean Dupont', 'jean', 'Éloïse Ñúñez']],
    ['^[^\\p{Cc}\\p{Cn}\\p{Co}\\p{Cs}]*$', ['ok', 'tab\t', '\u{E000}', '\u{50000}']],
    ['^\\P{Emoji_Presentation}+$', ['abc', '⌚', 'a😀']],
    ['^[\\p{Hex_Digit}\\-]+$', ['fF0', 'g', 'Ａ-']],
  ];
  for (const [p, subjects] of cases) {
    const re = new RegExp(p, 'u');
    const v = rt.compileSchema({ type: 'string', pattern: p });
    for (const s of subjects) assert.equal(v.validate(JSON.stringify(s)).valid, re.test(s), `${p} on ${JSON.stringify(s)}`);
  }
});

test('names: every one compiles in V8 and toolgate, in every form, and format "regex" takes it', { skip }, () => {
  const refused = [];
  for (const n of names) {
    for (const f of FORMS[n.kind](n.name)) {
      for (const p of [`\\p{${f}}`, `\\P{${f}}`, `[^\\p{${f}}a]`]) {
        if (!v8ok(p)) refused.push(`V8 refuses ${p}`);
        if (!tgCompiles(p)) refused.push(`pattern refuses ${p}`);
        if (!fmt.validate(JSON.stringify(p)).valid) refused.push(`format "regex" refuses ${p}`);
      }
    }
  }
  assert.deepEqual(refused, []);
});

test('names: what V8 refuses near them, toolgate refuses (pattern and format "regex"), and the other way round', { skip }, (t) => {
  const cands = new Set([
    // UCD properties ECMA-262 does not take, other properties, strings
    'Other_Alphabetic', 'Other_Lowercase', 'Other_Math', 'Hyphen', 'IDS_Unary_Operator', 'IDSU', 'ID_Compat_Math_Start',
    'ID_Compat_Math_Continue', 'InCB', 'Indic_Conjunct_Break=Linker', 'Modifier_Combining_Mark', 'MCM',
    'Prepended_Concatenation_Mark', 'PCM', 'Composition_Exclusion', 'Full_Composition_Exclusion', 'Grapheme_Link',
    'Expands_On_NFC', 'NFKC_Simple_Casefold', 'Block=Basic_Latin', 'blk=ASCII', 'InBasic_Latin', 'Age=1.1',
    'Bidi_Class=L', 'bc=L', 'Line_Break=AL', 'Basic_Emoji', 'RGI_Emoji', 'Emoji_Keycap_Sequence',
    'RGI_Emoji_Flag_Sequence', 'Katakana_Or_Hiragana', 'sc=Hrkt', 'scx=Hrkt', 'Script=Katakana_Or_Hiragana',
    'L&', 'gc=L&', 'Any=Yes', 'Alphabetic=Y', 'ASCII=True', 'Lu=Y',
    // malformed
    '', '=', 'gc', 'sc', 'scx', 'gc=', '=L', 'sc=', 'Script_Extensions', 'General_Category', 'gc=L=', 'sc=Latin ',
    ' L', 'L ', 'sc =Latin', 'sc= Latin', 'Script_Extension=Latin', 'Scripts=Latin', 'General_category=L', 'GC=L',
    'SC=Latin', 'Sc=Latin',
  ]);
  for (const n of names) {
    const x = n.name;
    for (const v of [x.toLowerCase(), x.toUpperCase(), x.replace(/_/g, ' '), x.replace(/_/g, '-'), x.replace(/_/g, ''), `Is${x}`, `${x}=Yes`,
      `sc=${x}`, `scx=${x}`, `gc=${x}`, `General_Category=${x}`, `Script=${x}`, x]) cands.add(v);
  }
  const diffs = [];
  for (const c of cands) {
    const p = `\\p{${c}}`;
    const want = v8ok(p);
    const pat = tgCompiles(p);
    const f = fmt.validate(JSON.stringify(p)).valid;
    if (pat !== want || f !== want) diffs.push(`${p}: V8 ${want}, pattern ${pat}, format ${f}`);
  }
  assert.deepEqual(diffs.slice(0, 30), []);
  assert.ok(cands.size > 5000, `${cands.size} names tried`);
  t.diagnostic(`${cands.size} names tried`);
});

test('an unknown name is refused with a message naming it and the Unicode version', () => {
  assert.throws(() => rt.compileSchema({ type: 'string', pattern: '^\\p{Alphabetic=Yes}$' }),
    (e) => e.message.includes('unknown Unicode property \\p{Alphabetic=Yes}') && e.message.includes(`Unicode ${tablesVersion}`));
  assert.equal(fmt.validate(JSON.stringify('\\p{alphabetic}')).valid, false);
  assert.equal(fmt.validate(JSON.stringify('\\p{Alphabetic}')).valid, true);
});
