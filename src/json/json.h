/* json.h - strict RFC 8259 reading and canonical writing.
 *
 * Every byte of JSON the module reads (descriptors, schemas, arguments,
 * policies, JSON-RPC) comes through tg_json_parse. The document model is
 * cJSON's struct, with nodes allocated from a caller's arena (never call
 * cJSON_Delete on them; tg_arena_free releases the whole document), and two
 * extensions of cJSON's model, both read through this header:
 *   - strings and object keys carry their byte length (they may contain
 *     U+0000): tg_json_strlen(item->valuestring), tg_json_strlen(item->string);
 *   - numbers keep their exact lexeme in valuestring (valuedouble holds the
 *     nearest double, +-HUGE_VAL when the number is too large for one).
 *
 * What it rejects: anything RFC 8259 does not allow (leading zeros, "2.",
 * ".5", raw control characters in strings, bad escapes, trailing garbage, a
 * byte order mark), invalid UTF-8 anywhere, lone surrogate escapes, nesting
 * deeper than max_depth (checked without recursion, so any depth is safe),
 * input longer than max_bytes, and duplicate object keys unless
 * allow_duplicate_keys is set. Each error has a status, the byte offset where
 * it was found and a message for people. */
#ifndef TG_JSON_JSON_H
#define TG_JSON_JSON_H

#include <stddef.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "../base/arena.h"
#include "../base/buf.h"

typedef enum tg_json_status {
    TG_JSON_OK = 0,
    TG_JSON_SYNTAX,        /* not JSON */
    TG_JSON_UTF8,          /* invalid UTF-8 or a lone surrogate escape */
    TG_JSON_DEPTH,         /* nested deeper than max_depth */
    TG_JSON_TOO_LARGE,     /* input longer than max_bytes */
    TG_JSON_DUPLICATE_KEY, /* an object names the same key twice */
    TG_JSON_NOMEM          /* the allocator refused */
} tg_json_status;

typedef struct tg_json_limits {
    size_t max_bytes;         /* 0: no cap */
    size_t max_depth;         /* arrays+objects open at once; default 256 */
    int allow_duplicate_keys; /* default 0: reject */
} tg_json_limits;

typedef struct tg_json_error {
    tg_json_status status;
    size_t offset;       /* byte offset into the input */
    char message[160];   /* NUL-terminated, for people */
} tg_json_error;

/* Defaults: max_bytes 0 (no cap), max_depth 256, duplicates rejected. */
tg_json_limits tg_json_default_limits(void);

/* Parses text[0..len). Returns the root (owned by arena) or NULL with *err
 * filled. The arena keeps whatever was allocated before an error; callers
 * that want it back use tg_arena_save / tg_arena_rewind. */
cJSON *tg_json_parse(tg_arena *arena, const char *text, size_t len, const tg_json_limits *limits,
                     tg_json_error *err);

/* tg_json_parse that hands the elements of one array to fn as each is
 * read, instead of keeping them: the array is the member `key` of the root
 * object (a tools/list batch's "tools"). Each element is parsed into
 * scratch, given to fn with the root as read so far (the members before the
 * array), and scratch is rewound after: a batch of a thousand tools never
 * holds more than one tool's nodes. The array itself stays in the tree,
 * empty. Strictness, limits and errors are tg_json_parse's to the byte.
 * fn returns 0, or -1 to stop (out of memory: NULL, TG_JSON_NOMEM). */
typedef struct tg_json_each {
    const char *key;
    tg_arena *scratch;
    int (*fn)(void *ud, const cJSON *root, const cJSON *element);
    void *ud;
} tg_json_each;

cJSON *tg_json_parse_each(tg_arena *arena, const char *text, size_t len, const tg_json_limits *limits,
                          tg_json_error *err, const tg_json_each *each);

/* Byte length of a string, key or number lexeme made by this module (kept
 * in the size_t just before the text). */
static inline size_t tg_json_strlen(const char *s) {
    size_t n;
    memcpy(&n, s - sizeof(size_t), sizeof n);
    return n;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* A string of 1 to 16 bytes made by this module, loaded as two words for a
 * caller's own byte test: *lo holds bytes 0..7, *hi bytes len-8..len-1
 * (from 9 bytes; under that *hi is *lo). Returns the mask of *lo's bytes
 * that are the string's: all ones from 8 bytes, else the low len bytes.
 * Under 8 bytes the word read ends at the string's end, so it starts before
 * the string: this relies on the layout of every string tg_json makes, its
 * size_t length just before its text (8 bytes on 64-bit hosts; on 32-bit
 * ones the rest is the arena chunk's, its header or an earlier
 * allocation). Those bytes are shifted out, so *lo's high bytes are 0.
 * (Little-endian hosts only: callers keep a bytewise path. Forced inline:
 * callers test every key and short string with it.) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline uint64_t tg_json_short_words(const char *s, size_t len, uint64_t *lo, uint64_t *hi) {
    if (len <= 8) {
        uint64_t w;
        memcpy(&w, s + len - 8, 8);
        *lo = *hi = w >> 8 * (8 - len);
        return ~(uint64_t)0 >> 8 * (8 - len);
    }
    memcpy(lo, s, 8);
    memcpy(hi, s + len - 8, 8);
    return ~(uint64_t)0;
}
#endif

/* a[0..n) == b[0..n), for short names (keys, keywords, property names):
 * word compares inline instead of a memcmp call */
static inline int tg_json_same_bytes(const char *a, const char *b, size_t n) {
    uint64_t x, y;
    while (n >= 8) {
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y) return 0;
        a += 8; b += 8; n -= 8;
    }
    if (n >= 4) {
        uint32_t p, q, r, t;
        memcpy(&p, a, 4); memcpy(&q, b, 4);
        memcpy(&r, a + n - 4, 4); memcpy(&t, b + n - 4, 4);
        return p == q && r == t;
    }
    while (n--) if (*a++ != *b++) return 0;
    return 1;
}

/* Child of object named key[0..keylen) (exact bytes), or NULL. */
cJSON *tg_json_get(const cJSON *object, const char *key, size_t keylen);
/* Same, for a NUL-terminated key. */
cJSON *tg_json_getz(const cJSON *object, const char *key);
/* 1 when member's key is exactly z (keys are length-prefixed and may hold
 * U+0000: "name\u0000x" is not "name", which strcmp would say it is). */
int tg_json_key_is(const cJSON *member, const char *z);
/* 1 when v is a string whose value is exactly z (a value may hold U+0000). */
int tg_json_string_is(const cJSON *v, const char *z);

/* 1 when the number's value is an integer (1, 1.0, 1e3, 1e400 are; 1.5 is
 * not), judged from the lexeme, so it is exact for any size. */
int tg_json_is_integer(const cJSON *number);

/* JSON Schema equality: same type and value, numbers by mathematical value
 * (1 == 1.0 == 1e0, exactly: 9007199254740993 != 9007199254740992 though
 * they are one double), objects regardless of key order. */
int tg_json_equal(const cJSON *a, const cJSON *b);
/* tg_json_equal in O(n log n) for large objects whose members come in
 * different orders (two 40,000-member objects in reverse order cost 1.6e9
 * key comparisons the plain way): their members are sorted by key in
 * scratch (rewound before it returns). For values a model or an upstream
 * sent; scratch NULL, or refusing, falls back to the plain way. doubles:
 * numbers are equal as well when their doubles are (what a JS reader of
 * the JSON sees: 100.00000000000000001 is 100). */
int tg_json_equal_in(const cJSON *a, const cJSON *b, tg_arena *scratch, int doubles);
/* The one order of member keys (length-prefixed: U+0000 may occur):
 * shorter first, then by bytes. tg_json_member_cmp compares two
 * `const cJSON *` members by it (a qsort comparator). */
int tg_json_key_cmp(const char *a, size_t la, const char *b, size_t lb);
int tg_json_member_cmp(const void *a, const void *b);
/* obj's members in that order, in scratch (*n their count); NULL when
 * scratch refuses. */
const cJSON **tg_json_members_sorted(tg_arena *scratch, const cJSON *obj, size_t *n);
/* The order of two number lexemes by exact decimal value (-1, 0, 1): 1 ==
 * 1.0 == 1e0, 9007199254740993 > 9007199254740992 (one double), 1e-400 > 0;
 * exponents are read up to 10^14. */
int tg_json_decimal_cmp(const char *a, size_t an, const char *b, size_t bn);

/* The same document to the byte: same types, strings and number lexemes
 * byte for byte, members in the same order (what would write the same
 * canonical text). For nodes made by this module. */
int tg_json_same(const cJSON *a, const cJSON *b);

/* Node constructors, all owned by arena; NULL when the allocator refuses.
 * Strings are copied. Add children with tg_json_append. */
cJSON *tg_json_new(tg_arena *arena, int type);
cJSON *tg_json_new_string(tg_arena *arena, const char *s, size_t len);
cJSON *tg_json_new_number(tg_arena *arena, double value);
/* Sets item->string to a copy of key; returns -1 when the allocator refuses. */
int tg_json_set_key(tg_arena *arena, cJSON *item, const char *key, size_t keylen);
/* Appends item as the last child of container. */
void tg_json_append(cJSON *container, cJSON *item);
/* Unlinks item, a child of container (its next/prev cleared). */
void tg_json_detach(cJSON *container, cJSON *item);
/* A JSON Pointer token as an array index (RFC 6901 section 4: "0" or a
 * digit 1-9 then digits; here at most 9 of them): 0 with *idx set, or -1. */
int tg_json_array_index(const char *tok, size_t len, size_t *idx);
/* The node a same-document reference names: "#" and a JSON Pointer
 * ("#/$defs/A"; "#" alone is doc), read as the schema compiler reads it
 * (%XX decoded first, then split at '/', then ~1 and ~0), or NULL (not such
 * a reference, a bad %-escape, or nothing there). */
const cJSON *tg_json_pointer_ref(const cJSON *doc, const char *ref, size_t len);
/* Deep copy into arena. */
cJSON *tg_json_clone(tg_arena *arena, const cJSON *item);
/* Arena bytes tg_json_clone(item) takes (for tg_arena_reserve). */
size_t tg_json_clone_size(const cJSON *item);
/* ... of which item alone takes (its node, key and text; no children):
 * inline, asked of every node a size walk passes. */
static inline size_t tg_json__str_bytes(const char *s) {
    return s ? (sizeof(size_t) + tg_json_strlen(s) + 1 + 7u) & ~(size_t)7u : 0;
}
static inline size_t tg_json_node_size(const cJSON *item) {
    return ((sizeof *item + 7u) & ~(size_t)7u) + tg_json__str_bytes(item->valuestring) + tg_json__str_bytes(item->string);
}

/* Canonical writing: no insignificant white space, keys in document order,
 * number lexemes as read, strings with only the escapes RFC 8259 requires
 * (plus \u escapes for other control characters). Returns 0, or -1 when the
 * buffer refused (see tg_buf). */
int tg_json_write(tg_buf *out, const cJSON *item);
/* tg_json_write with every object's members in the order of their keys'
 * bytes (a key that is a prefix of another first): the same text for the
 * same JSON however a writer ordered its members (definition digests). */
int tg_json_write_sorted(tg_buf *out, const cJSON *item);
/* Where a member of an object tg_json_write_split wrote lies in the
 * sorted text: "key":value from at, the value from val, to end. */
typedef struct tg_json_span {
    const cJSON *member;
    size_t at, val, end;
} tg_json_span;
/* Both texts of object obj in one walk, each string escaped once: obj as
 * tg_json_write writes it, to doc; each of its members, "key":value with
 * the value as tg_json_write_sorted writes it, to sorted, one after
 * another in the order tg_json_write_sorted writes them in (equal keys,
 * which only a reader allowing them makes, in document order), with nothing
 * between them, span[i] (room for one per member) telling where the i-th
 * lies. For a canonical text made of a document's members (a digest)
 * beside the document's own text. 0, or -1 when a buffer refused. */
int tg_json_write_split(tg_buf *doc, tg_buf *sorted, const cJSON *obj, tg_json_span *span);
/* Appends s[0..len) as a JSON string literal. */
int tg_json_write_string(tg_buf *out, const char *s, size_t len);
/* 1 when s[0..len) is plain ASCII: no byte below 0x20 or past 0x7F, no
 * '"' or '\\'; what the writer copies as it is, and what the lexer's fast
 * scan reads without stopping. */
int tg_json_plain(const char *s, size_t len);
/* The bytes tg_json_write_string would write for s[0..len), quotes
 * included, without writing them. */
size_t tg_json_string_size(const char *s, size_t len);

#endif
