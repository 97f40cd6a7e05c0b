// schema_suite.test.js - the official JSON-Schema-Test-Suite through the
// wasm build and the JS API (compileSchema / validate): every required test
// of draft2020-12, draft2019-09 and draft7; optional/format (assertion mode)
// and optional/ecmascript-regex reported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createToolRuntime } from 'toolgate';
import { testdata } from './helpers.js';

const suite = path.join(testdata, 'JSON-Schema-Test-Suite');
const DRAFTS = [['draft2020-12', '2020-12'], ['draft2019-09', '2019-09'], ['draft7', 'draft-07']];

async function remotes() {
  const out = {};
  async function walk(dir, rel) {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p, `${rel}${e.name}/`);
      else if (e.name.endsWith('.json')) out[`http://localhost:1234/${rel}${e.name}`] = JSON.parse(await readFile(p, 'utf8'));
    }
  }
  await walk(path.join(suite, 'remotes'), '');
  return out;
}

async function run(rt, files, dialect, resources, formats) {
  let passed = 0;
  const failures = [];
  for (const file of files) {
    for (const group of JSON.parse(await readFile(file, 'utf8'))) {
      let v;
      try {
        v = rt.compileSchema(group.schema, { dialect, resources, formats });
      } catch (e) {
        for (const t of group.tests) failures.push(`${path.basename(file)}: ${group.description}: ${t.description}: compile: ${e.message}`);
        continue;
      }
      for (const t of group.tests) {
        const r = v.validate(JSON.stringify(t.data));
        if (r.valid === t.valid) passed++;
        else failures.push(`${path.basename(file)}: ${group.description}: ${t.description}: expected ${t.valid}`);
      }
      v.dispose();
    }
  }
  return { passed, failures };
}

const jsonFiles = async (dir) => (existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(dir, f)) : []);

for (const [draft, dialect] of DRAFTS) {
  test(`JSON-Schema-Test-Suite ${draft}: every required test, through the wasm build`, { skip: !existsSync(suite) && `no suite at ${suite}` }, async () => {
    const rt = await createToolRuntime();
    const resources = await remotes();
    const required = await run(rt, await jsonFiles(path.join(suite, 'tests', draft)), dialect, resources);
    const format = await run(rt, await jsonFiles(path.join(suite, 'tests', draft, 'optional', 'format')), dialect, resources, 'assert');
    const regexFile = path.join(suite, 'tests', draft, 'optional', 'ecmascript-regex.json');
    const regex = await run(rt, existsSync(regexFile) ? [regexFile] : [], dialect, resources);
    const pct = (r) => `${r.passed}/${r.passed + r.failures.length}`;
    console.log(`wasm ${draft}: required ${pct(required)}, optional/format (assert) ${pct(format)}, optional/ecmascript-regex ${pct(regex)}`);
    assert.deepEqual(required.failures.slice(0, 20), []);
    rt.dispose();
  });
}
