// list_cache.test.js - listTools' results are kept per request, and what is
// kept is bounded by count and by the length of their text (list-cache.js):
// many principals or sessions each listing many tools cannot grow the
// host's heap without bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createToolRuntime } from 'toolgate';
import { ListCache, LIST_CACHE_ENTRIES } from '../../js/src/list-cache.js';

const obj = { type: 'object', properties: { q: { type: 'string' } } };

test('a listing is kept per request: the same request gives the same frozen object until the tool set changes', async () => {
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'a', inputSchema: obj }, () => 'ok');
  const first = rt.listTools({ format: 'anthropic' });
  assert.equal(rt.listTools({ format: 'anthropic' }), first);
  assert.ok(Object.isFrozen(first.tools[0]));
  assert.notEqual(rt.listTools({ format: 'openai' }), first);
  rt.registerTool({ name: 'b', inputSchema: obj }, () => 'ok');
  const after = rt.listTools({ format: 'anthropic' });
  assert.notEqual(after, first);
  assert.deepEqual(after.tools.map((t) => t.name), ['a', 'b']);
  rt.dispose();
});

test('past 64 requests the oldest listing is let go (and rendered again when asked for), the newer ones kept', async () => {
  const rt = await createToolRuntime();
  rt.registerTool({ name: 'a', inputSchema: obj }, () => 'ok');
  const req = (i) => ({ format: 'mcp', principal: `p${i}` });
  const kept = Array.from({ length: LIST_CACHE_ENTRIES + 1 }, (_, i) => rt.listTools(req(i)));
  assert.equal(rt.listTools(req(LIST_CACHE_ENTRIES)), kept[LIST_CACHE_ENTRIES]);
  assert.equal(rt.listTools(req(1)), kept[1]);
  const again = rt.listTools(req(0));
  assert.notEqual(again, kept[0]);
  assert.deepEqual(again, kept[0]);
  rt.dispose();
});

test('the cache lets the oldest results go once their text passes its budget; the newest is kept however large', () => {
  const c = new ListCache(10, 100);
  c.set('a', { a: 1 }, 40);
  c.set('b', { b: 1 }, 40);
  assert.deepEqual([c.size, c.chars], [2, 80]);
  c.set('c', { c: 1 }, 40); // 120 > 100: 'a' goes
  assert.equal(c.get('a'), undefined);
  assert.deepEqual(c.get('b'), { b: 1 });
  assert.deepEqual([c.size, c.chars], [2, 80]);
  c.set('huge', { h: 1 }, 500); // over the budget alone: kept, everything older let go
  assert.deepEqual([c.size, c.chars], [1, 500]);
  assert.deepEqual(c.get('huge'), { h: 1 });
  c.set('d', { d: 1 }, 10); // the huge one goes as soon as anything newer comes
  assert.deepEqual([c.size, c.chars], [1, 10]);
  c.set('d', { d: 2 }, 30); // the same request again: replaced, counted once
  assert.deepEqual([c.size, c.chars], [1, 30]);
  assert.deepEqual(c.get('d'), { d: 2 });
  c.clear();
  assert.deepEqual([c.size, c.chars], [0, 0]);
});

test('the cache keeps at most its count of results, oldest out first', () => {
  const c = new ListCache(3, 1e9);
  for (const k of ['a', 'b', 'c', 'd']) c.set(k, k, 1);
  assert.deepEqual(['a', 'b', 'c', 'd'].map((k) => c.get(k)), [undefined, 'b', 'c', 'd']);
  assert.equal(c.size, 3);
});
