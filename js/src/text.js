// text.js - the UTF-8 size of JS strings, as the module counts bytes.

/** UTF-8 bytes of a JS string as TextEncoder writes it: 2 for U+0080-07FF,
 * 3 for the rest of the BMP and for a lone surrogate (written as U+FFFD),
 * 4 for a surrogate pair. One pass; no copy. */
export function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xD800 && c < 0xDC00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xFC00) === 0xDC00) {
      n += 2; // (the pair's two units count 2 already: 4 in all)
      i++;
    } else n += 2;
  }
  return n;
}
