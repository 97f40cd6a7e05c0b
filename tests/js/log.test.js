// log.test.js - the gateway's relay of an upstream's stderr (js/src/log.js)
// on a stream of its own with a clock the test sets: lines split anywhere
// between chunks, lines cut, the window's limits, what is said when output
// is suppressed and when it is relayed again. (cli.test.js runs it end to
// end, through a real upstream.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { relayStderr } from '../../js/src/log.js';

/** A relay with small limits; write(...chunks) feeds it, end() ends it. */
function relay(limits) {
  const stream = new PassThrough();
  const lines = [];
  const clock = { t: 0 };
  relayStderr(stream, 'up', (l) => lines.push(l), { now: () => clock.t, limits: { lineBytes: 16, windowMs: 1000, windowLines: 3, windowBytes: 1 << 20, ...limits } });
  const settle = () => new Promise((r) => setImmediate(r));
  return {
    lines, clock,
    write: async (...chunks) => { for (const c of chunks) { stream.write(c); await settle(); } },
    end: async () => { const ended = new Promise((r) => stream.once('end', r)); stream.end(); stream.resume(); await ended; await settle(); },
  };
}

test('relay: a line split between chunks, even inside a character, is one line; a cut line keeps whole characters', async () => {
  const r = relay({ windowLines: 10 });
  const e = Buffer.from('é\tx\r\n'); // (0xc3 0xa9: split between the two chunks)
  await r.write(e.subarray(0, 1), e.subarray(1));
  await r.write('\u65e5\u672c\u8a9e\u65e5\u672c\u8a9e\n'); // 18 bytes: cut at 16, inside the sixth character
  await r.write('\u001b[31mred\u001b[0m\n');
  await r.end();
  assert.deepEqual(r.lines, [
    '[upstream up] é\tx',
    '[upstream up] \u65e5\u672c\u8a9e\u65e5\u672c... (cut: a line of 18 bytes)',
    '[upstream up] red',
  ]);
});

test('relay: past the window\'s lines, one notice; the next window says how much was suppressed and relays from a whole line', async () => {
  const r = relay();
  await r.write('a\nb\nc\nd\ne\nhalf of f');
  r.clock.t = 999;
  await r.write(' and the rest of f\nhalf of g');
  assert.deepEqual(r.lines.slice(3), ['toolgate: upstream up: over 3 lines or 1048576 bytes of stderr in 1 s; further output of upstream up suppressed']);
  r.clock.t = 1000; // a new window, in the middle of a line: that line stays suppressed
  await r.write(' and the end of g\nh\n');
  await r.end();
  const suppressed = 'd\ne\nhalf of f and the rest of f\nhalf of g and the end of g\n'.length;
  assert.deepEqual(r.lines, [
    '[upstream up] a', '[upstream up] b', '[upstream up] c',
    'toolgate: upstream up: over 3 lines or 1048576 bytes of stderr in 1 s; further output of upstream up suppressed',
    `toolgate: upstream up: ${suppressed} bytes of its stderr were suppressed`,
    '[upstream up] h',
  ]);
});

test('relay: the window\'s bytes count too; a stream that ends while suppressed says how much was', async () => {
  const r = relay({ windowLines: 100, windowBytes: 40 }); // "[upstream up] 0123456789\n" is 25 bytes
  await r.write('0123456789\n0123456789\n0123456789\n');
  await r.write('tail without a newline');
  await r.end();
  assert.deepEqual(r.lines, [
    '[upstream up] 0123456789',
    'toolgate: upstream up: over 100 lines or 40 bytes of stderr in 1 s; further output of upstream up suppressed',
    'toolgate: upstream up: 44 bytes of its stderr were suppressed',
  ]);
});

test('relay: a partial line is relayed when the stream ends', async () => {
  const r = relay();
  await r.write('last words');
  await r.end();
  assert.deepEqual(r.lines, ['[upstream up] last words']);
});

test('relay: a CRLF line ending is not the line\'s text: a line of exactly lineBytes ended by CRLF is whole, as by LF', async () => {
  const r = relay({ windowLines: 10 });
  await r.write('0123456789abcdef\r\n', '0123456789abcdef\n', '0123456789abcdef', '\r', '\n', '0123456789abcdefg\r\n');
  await r.end();
  assert.deepEqual(r.lines, [
    '[upstream up] 0123456789abcdef',
    '[upstream up] 0123456789abcdef',
    '[upstream up] 0123456789abcdef',
    '[upstream up] 0123456789abcdef... (cut: a line of 17 bytes)',
  ]);
});
