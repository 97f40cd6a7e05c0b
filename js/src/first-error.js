// first-error.js - a validation error the module left as a code
// (tg_validate_first), written here from the instance's own text and the
// schema's fixed words: the module's words for it decoded once per site,
// not once per error. The module codes only errors whose words this can
// write exactly as it would (include/toolgate.h, TG_SCODE_*), over ASCII
// text, whose byte offsets are its UTF-16 offsets.

// the word indices and kinds of toolgate.h
const DYN = 2, COUNT = 3, VKIND = 4, VSTART = 5, VEND = 6, KSTART = 7, KLEN = 8, DEPTH = 9, PATH = 10;
const INDEX = 0xFFFFFFFF;
const DYN_VALUE = 1, DYN_COUNT = 2, DYN_KEY = 3;
const VAL_STRING = 5, VAL_INTEGER = 6;
const LITERAL = ['null', 'boolean true', 'boolean false', 'object', 'array'];
const CUT = 40; // describe()'s cut of a string, in bytes (ASCII here: characters)

/** The value's words, as schema_report.c's describe() writes them. */
function describe(w, at, text) {
  const kind = w[at + VKIND];
  if (kind === VAL_INTEGER) return 'integer ' + text.slice(w[at + VSTART], w[at + VEND]);
  if (kind !== VAL_STRING) return LITERAL[kind];
  const start = w[at + VSTART], end = w[at + VEND];
  // (the text's own quotes, on either side of the string's bytes)
  return end - start > CUT ? 'string "' + text.slice(start, start + CUT) + '"...' : 'string ' + text.slice(start - 1, end + 1);
}

/** The error coded at word `at` of `w` over `text`, whose site's fixed
 * words are `words` ({ loc, pre, post }: siteWordsOf). */
export function codedError(w, at, text, words) {
  let instanceLocation = '';
  const depth = w[at + DEPTH];
  for (let i = 0, p = at + PATH; i < depth; i++, p += 2) {
    // (a name with '~' or '/', which a pointer escapes, is never coded)
    instanceLocation += w[p] === INDEX ? '/' + w[p + 1] : '/' + text.slice(w[p], w[p] + w[p + 1]);
  }
  const dyn = w[at + DYN];
  let part = '';
  if (dyn === DYN_VALUE) part = describe(w, at, text);
  else if (dyn === DYN_COUNT) part = String(w[at + COUNT]);
  else if (dyn === DYN_KEY) {
    const key = text.slice(w[at + KSTART], w[at + KSTART] + w[at + KLEN]);
    instanceLocation += '/' + key;
    part = '"' + key + '"';
  }
  return { instanceLocation, keywordLocation: words.loc, message: words.pre + part + words.post };
}

/** A site's record (keyword location, message with 0x01 for the part) as
 * the words codedError uses. */
export function siteWordsOf(loc, template) {
  const mark = template.indexOf('\u0001');
  return mark < 0 ? { loc, pre: template, post: '' } : { loc, pre: template.slice(0, mark), post: template.slice(mark + 1) };
}
