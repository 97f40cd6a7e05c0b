// first_error.test.js - a first error the module leaves coded (maxErrors: 1
// over ASCII text) and first-error.js writes from the text must read
// exactly as the module writes it: the same instance given as UTF-8 bytes
// takes the module's words, and the two are compared, over the whole
// JSON-Schema-Test-Suite and over the cases the code has rules for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createToolRuntime } from 'toolgate';
import { testdata } from './helpers.js';

const suite = path.join(testdata, 'JSON-Schema-Test-Suite');
const encoder = new TextEncoder();

/** The first error of `text` both ways; returns whether it came coded. */
function agree(v, text, what) {
  const before = v._sites?.size ?? 0;
  const fromText = v.validate(text, { maxErrors: 1 });
  const fromBytes = v.validate(encoder.encode(text), { maxErrors: 1 });
  assert.deepEqual(fromText, fromBytes, what);
  // (a site is asked for once: a coded error of a site seen before adds none,
  // so "coded" is told by the site count only for the first of each)
  return (v._sites?.size ?? 0) > before;
}

test('coded first errors read as the module writes them, over every test of the JSON-Schema-Test-Suite', { skip: !existsSync(suite) && `no suite at ${suite}` }, async () => {
  const rt = await createToolRuntime();
  let compared = 0, sites = 0;
  for (const [draft, dialect] of [['draft2020-12', '2020-12'], ['draft2019-09', '2019-09'], ['draft7', 'draft-07']]) {
    const dir = path.join(suite, 'tests', draft);
    for (const f of (await readdir(dir)).filter((n) => n.endsWith('.json'))) {
      for (const group of JSON.parse(await readFile(path.join(dir, f), 'utf8'))) {
        let v;
        try { v = rt.compileSchema(group.schema, { dialect }); } catch { continue; } // (remote refs: the suite test's)
        for (const t of group.tests) {
          agree(v, JSON.stringify(t.data), `${draft}/${f}: ${group.description}: ${t.description}`);
          compared++;
        }
        sites += v._sites?.size ?? 0;
        v.dispose();
      }
    }
  }
  console.log(`first errors compared: ${compared}; sites written from codes: ${sites}`);
  assert.ok(sites > 200, `the coded path was taken for ${sites} sites only`);
  rt.dispose();
});

test('coded first errors: each rule of first-error.js, and what is left to the module', async () => {
  const rt = await createToolRuntime();
  // (no keyword the one pass leaves to the evaluator, such as not and
  // multipleOf: their schemas are never coded)
  const v = rt.compileSchema({
    type: 'object',
    properties: {
      s: { type: 'string', maxLength: 3, pattern: '^[a-z]+$' },
      p: { pattern: '^[a-z]+$' },
      n: { type: 'integer', minimum: 10 },
      e: { enum: ['a', 1, null] },
      c: { const: { k: [1] } },
      list: { type: 'array', items: { type: 'object', properties: { x: { type: 'boolean' } } }, maxItems: 2 },
      'a/b~c': { type: 'string' },
      t: { type: 'null' },
      o: { type: 'object', minProperties: 2, required: ['p', 'q'] },
      any: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      one: { oneOf: [{ minimum: 0 }, { maximum: 100 }] },
      no: false,
    },
    required: ['s'],
    additionalProperties: false,
  });
  const coded = [
    ['a string too long', '{"s":"abcd"}', /expected a string of at most 3 characters, got 4/],
    ['a string that does not match', '{"s":"AB"}', /^string "AB" does not match the pattern$/],
    ['a string over 40 bytes, cut', JSON.stringify({ s: 'ab', p: 'X'.repeat(60) }), /^string "X{40}"\.\.\. does not match/],
    ['a string of exactly 40 bytes', JSON.stringify({ s: 'ab', p: 'Y'.repeat(40) }), /^string "Y{40}" does not match/],
    ['an integer below the minimum', '{"s":"ab","n":-5}', /got integer -5$/],
    ['an integer of 15 digits', '{"s":"ab","n":-' + '7'.repeat(15) + '}', /got integer -7{15}$/],
    ['a value not in the enum', '{"s":"ab","e":true}', /got boolean true$/],
    ['a container of the wrong type', '{"s":"ab","t":{"a":1}}', /^expected null, got object$/],
    ['a scalar not the constant', '{"s":"ab","c":"k"}', /^expected the constant \{"k":\[1\]\}, got string "k"$/],
    ['an item of an array, by index', '{"s":"ab","list":[{"x":true},{"x":0}]}', /got integer 0$/],
    ['too many items', '{"s":"ab","list":[{},{},{}]}', /got 3$/],
    ['null expected', '{"s":"ab","t":false}', /got boolean false$/],
    ['an object missing a required member', '{"s":"ab","o":{"p":1,"z":2}}', /missing required property "q"/],
    ['too few members', '{"s":"ab","o":{"p":1}}', /at least 2 properties, got 1$/],
    ['a member additionalProperties refuses', '{"s":"ab","zz":1}', /^property "zz" is not allowed$/],
    ['the root missing a member', '{}', /missing required property "s"/],
    ['a member whose schema is false', '{"s":"ab","no":1}', /the schema is false/],
    ['the root of the wrong type', '[1]', /^expected object, got array$/],
  ];
  for (const [what, text, message] of coded) {
    const fresh = rt.compileSchema(v.text); // (its sites all unasked: coded or not shows)
    assert.ok(agree(fresh, text, what), `${what}: left to the module, not coded`);
    assert.match(fresh.validate(text, { maxErrors: 1 }).errors[0].message, message, what);
    fresh.dispose();
  }
  // the same site again, from the kept words, with another value
  assert.equal(v.validate('{"s":"AB"}', { maxErrors: 1 }).errors[0].message, 'string "AB" does not match the pattern');
  assert.deepEqual(v.validate('{"s":"XY"}', { maxErrors: 1 }).errors[0], {
    instanceLocation: '/s', keywordLocation: '/properties/s/pattern', message: 'string "XY" does not match the pattern',
  });
  const left = [
    ['a string with an escape', '{"s":"A\\u0042"}'],
    ['a number with a fraction', '{"s":"ab","n":5.5}'],
    ['an integer longer than 40 digits', '{"s":"ab","n":-' + '9'.repeat(41) + '}'],
    ['a member name a pointer escapes', '{"s":"ab","a/b~c":1}'],
    ['a refused member name a pointer escapes', '{"s":"ab","x/y":1}'],
    ['two subschemas of oneOf', '{"s":"ab","one":50}'],
  ];
  for (const [what, text] of left) {
    const fresh = rt.compileSchema(v.text);
    assert.equal(agree(fresh, text, what), false, `${what}: coded, though first-error.js has no rule for it`);
    assert.equal(fresh.validate(text, { maxErrors: 1 }).valid, false, what);
    fresh.dispose();
  }
  // text that is not ASCII: its byte offsets are not its UTF-16 offsets, so never coded
  const fresh = rt.compileSchema(v.text);
  const text = '{"s":"AB","x":"é"}';
  assert.equal(agree(fresh, text, 'non-ASCII text'), false);
  assert.deepEqual(fresh.validate(text, { maxErrors: 1 }).errors[0], {
    instanceLocation: '/s', keywordLocation: '/properties/s/pattern', message: 'string "AB" does not match the pattern',
  });
  rt.dispose();
});
