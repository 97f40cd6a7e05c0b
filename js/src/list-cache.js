// list-cache.js - listTools' parsed results, kept per request until the
// tool set or the policy changes. Bounded by count and by the length of
// their JSON text: a gateway whose many principals or sessions each list
// many tools must not grow the host's heap without bound (a listing of
// 10,000 tools is ~12 MB of text, and several times that as objects), as a
// count alone let it (64 of those). Oldest out first; the newest result is
// kept whatever its size, so the one listing a host asks for again and
// again is a hit however large it is.

export const LIST_CACHE_ENTRIES = 64;
export const LIST_CACHE_CHARS = 8 << 20;

export class ListCache {
  #map = new Map(); // request text -> { out, chars }
  #chars = 0;
  #maxEntries;
  #maxChars;

  constructor(maxEntries = LIST_CACHE_ENTRIES, maxChars = LIST_CACHE_CHARS) {
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
  }

  /** The result kept for `key`, or undefined. */
  get(key) { return this.#map.get(key)?.out; }

  /** Keeps `out`, whose JSON text was `chars` long, for `key`. */
  set(key, out, chars) {
    const old = this.#map.get(key);
    if (old !== undefined) {
      this.#map.delete(key);
      this.#chars -= old.chars;
    }
    for (const [k, e] of this.#map) {
      if (this.#map.size < this.#maxEntries && this.#chars + chars <= this.#maxChars) break;
      this.#map.delete(k); // (a Map iterates in insertion order: the oldest first)
      this.#chars -= e.chars;
    }
    this.#map.set(key, { out, chars });
    this.#chars += chars;
  }

  clear() {
    this.#map.clear();
    this.#chars = 0;
  }

  /** How many results, and how many characters of their text, are kept. */
  get size() { return this.#map.size; }
  get chars() { return this.#chars; }
}
