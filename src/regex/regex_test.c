/* regex_test.c - unit tests for src/regex: every syntax feature, the
 * rejected constructs, limits, UTF-8 subjects, linear time on ReDoS
 * patterns, allocator accounting and failure injection. Ports the relevant
 * cases of JSON-Schema-Test-Suite draft2020-12 ecmascript-regex.json,
 * pattern.json and patternProperties.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex.h"
#include "regex_unicode.h"
#include "regex_vm.h" /* to run the Pike VM and the lazy DFA side by side */
#include "../../tests/tg_test.h"

/* Counting allocator: tracks live bytes and can refuse the n-th request. */
typedef struct counting {
    long live, calls, fail_at; /* fail_at < 0: never */
} counting;

static void *count_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
    counting *c = ud;
    if (nsize == 0) {
        c->live -= (long)osize;
        free(ptr);
        return NULL;
    }
    if (c->fail_at >= 0 && c->calls++ == c->fail_at) return NULL;
    ptr = realloc(ptr, nsize);
    if (ptr) c->live += (long)nsize - (long)osize;
    return ptr;
}

static counting g_count = {0, 0, -1};
static const tg_allocator g_alloc = {count_fn, &g_count};

static void check(int ok, const char *what, const char *pat, const char *detail) {
    if (ok) { tg_test_passed++; return; }
    tg_test_failed++;
    fprintf(stderr, "FAIL %s: pattern /%s/ %s\n", what, pat, detail ? detail : "");
}

static tg_regex *compile_ok(const char *pat, size_t plen) {
    tg_regex *re = NULL;
    tg_regex_error err;
    if (tg_regex_compile(&g_alloc, pat, plen, NULL, &re, &err) != 0) {
        char buf[256];
        snprintf(buf, sizeof buf, "compile error at %zu: %s", err.offset, err.message);
        check(0, "compile", pat, buf);
        return NULL;
    }
    return re;
}

/* Public search; also checks that the Pike VM and the lazy DFA agree. */
static int search(const tg_regex *re, const char *s, size_t len) {
    size_t n = tg_regex_scratch_size(re);
    void *scratch = malloc(n);
    const unsigned char *u = (const unsigned char *)s;
    int r, pike, dfa;
    memset(scratch, 0xAB, n); /* the search must not rely on zeroed scratch */
    r = tg_regex_search(re, s, len, scratch);
    memset(scratch, 0xCD, n);
    pike = rx_pike_run(re, u, len, scratch, 0, &re->start, 1, 0, NULL);
    memset(scratch, 0xEF, n);
    dfa = rx_dfa_search(re, u, len, scratch, NULL);
    free(scratch);
    if (pike != r || dfa != r) {
        char buf[120];
        snprintf(buf, sizeof buf, "engines disagree: search %d pike %d dfa %d (len %zu)", r, pike, dfa, len);
        check(0, "engines", "?", buf);
    }
    return r;
}

/* Match check with explicit lengths (subjects may hold NUL). */
static void mn(const char *pat, size_t plen, const char *s, size_t slen, int want) {
    tg_regex *re = compile_ok(pat, plen);
    if (!re) return;
    {
        int got = search(re, s, slen);
        char buf[200];
        snprintf(buf, sizeof buf, "subject \"%.*s\" want %d got %d", (int)(slen > 80 ? 80 : slen), s, want, got);
        check(got == want, "match", pat, buf);
    }
    tg_regex_free(re);
}
static void M(const char *pat, const char *s) { mn(pat, strlen(pat), s, strlen(s), 1); }
static void N(const char *pat, const char *s) { mn(pat, strlen(pat), s, strlen(s), 0); }

/* Compile must fail at offset off (SIZE_MAX: any) with msg containing sub. */
static void E(const char *pat, size_t off, const char *sub) {
    tg_regex *re = NULL;
    tg_regex_error err;
    char buf[300];
    int rc = tg_regex_compile(&g_alloc, pat, strlen(pat), NULL, &re, &err);
    if (rc == 0) {
        check(0, "reject", pat, "compiled but should have failed");
        tg_regex_free(re);
        return;
    }
    snprintf(buf, sizeof buf, "got offset %zu message \"%s\" want offset %zu containing \"%s\"", err.offset,
             err.message, off, sub);
    check(re == NULL && (off == (size_t)-1 || err.offset == off) && strstr(err.message, sub) != NULL, "reject",
          pat, buf);
}

static void test_literals(void) {
    M("abc", "xxabcxx"); N("abc", "abx"); M("", ""); M("", "anything");
    M("a", "a"); N("a", ""); M("héllo", "oh héllo!"); N("héllo", "hello");
    M("^abc$", "abc"); N("^abc$", "abc\n"); N("^abc$", "abcd"); N("^abc$", "xabc");
    M("^ab", "abc"); N("^ab", "cab"); M("bc$", "abc"); N("bc$", "bca");
    M("^$", ""); N("^$", "a"); M("^", "x"); M("$", "x");
    M("a.c", "abc"); M("a.c", "a\xc3\xa9" "c"); N("a.c", "a\nc"); N("a.c", "a\rc");
    N("a.c", "a\xe2\x80\xa8" "c"); N("a.c", "a\xe2\x80\xa9" "c"); M("a.c", "a\tc");
    M("^.$", "\xc3\xa9"); M("^.$", "\xe2\x82\xac"); M("^.$", "\xf0\x9f\x98\x80"); N("^.$", "ab");
    N("^..$", "\xf0\x9f\x98\x80");
}

static void test_escapes(void) {
    M("^\\t$", "\t"); N("^\\t$", "\\t"); M("^\\n$", "\n"); M("^\\r$", "\r");
    M("^\\v$", "\v"); M("^\\f$", "\f"); M("^\\cC$", "\x03"); M("^\\cc$", "\x03"); N("^\\cC$", "\\cC");
    M("^\\x41$", "A"); M("^\\u00e9$", "\xc3\xa9"); M("^\\u{1F600}$", "\xf0\x9f\x98\x80");
    M("^\\uD83D\\uDE00$", "\xf0\x9f\x98\x80"); M("^\\u{41}\\u{0042}$", "AB");
    M("^\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\\\/$", ".*+?()[]{}|^$\\/");
    M("^\\-\\:\\\"$", "-:\""); M("a\\.b", "a.b"); N("a\\.b", "axb");
    mn("^a\\0b$", 6, "a\0b", 3, 1); mn("\\0", 2, "x\0y", 3, 1); N("\\0", "x0y");
}

static void test_classes(void) {
    M("^[abc]+$", "abccba"); N("^[abc]+$", "abd"); M("^[a-z]+$", "hello"); N("^[a-z]+$", "Hello");
    M("^[^a-z]+$", "HELLO1"); N("^[^a-z]+$", "HELLo"); M("^[a-]$", "-"); M("^[-a]$", "-");
    M("^[\\-]$", "-"); M("^[a\\-z]$", "-"); N("^[a\\-z]$", "b"); M("^[\\]]$", "]"); M("^[\\\\]$", "\\");
    N("[]", "a"); N("[]", ""); M("^[^]$", "\n"); M("^[^]$", "\xc3\xa9"); M("^[.]$", "."); N("^[.]$", "a");
    M("^[\\b]$", "\b"); M("^[\\d]+$", "0123"); M("^[\\dA-F]+$", "12AF"); N("^[\\dA-F]+$", "12AG");
    M("^[^\\d]$", "x"); N("^[^\\d]$", "5"); M("^[\\D]$", "x"); N("^[\\D]$", "5");
    M("^[\\s]$", "\xe3\x80\x80"); M("^[\\w-]+$", "a_b-c"); M("^[^\\W]$", "a"); N("^[^\\W]$", "-");
    M("^[\\u00e0-\\u00ff]$", "\xc3\xa9"); N("^[\\u00e0-\\u00ff]$", "a"); M("^[\xc3\xa9]$", "\xc3\xa9");
    M("^[\\u{1F600}-\\u{1F64F}]$", "\xf0\x9f\x98\x80"); N("^[^\\u{1F600}-\\u{1F64F}]$", "\xf0\x9f\x98\x80");
    M("^[[]$", "["); M("^[a-cx-z]+$", "abxyz"); N("^[a-cx-z]+$", "d"); M("^[\\x00-\\x1f]$", "\x1f");
    M("^[\\cA]$", "\x01"); M("^[\\p{Lu}\\d]+$", "AB12"); N("^[\\p{Lu}\\d]+$", "AB12c");
    M("^[^\\p{L}]+$", "123"); N("^[^\\p{L}]+$", "12a"); M("^[\\P{L}]+$", "123"); N("^[\\P{L}]$", "\xc3\xa9");
}

static void test_class_escapes(void) {
    M("^\\d$", "0"); N("^\\d$", "\xdf\x80"); M("^\\D$", "\xdf\x80"); N("^\\D$", "0");
    N("^\\d+$", "\xd9\xa3"); /* ARABIC-INDIC DIGIT THREE */ N("^\\d+$", "\xe0\xa7\xaa\xe0\xa7\xa8");
    M("^\\d+$", "42"); N("^\\d+$", "-%#");
    M("^\\w$", "a"); M("^\\w$", "_"); M("^\\w$", "Z"); M("^\\w$", "9"); N("^\\w$", "\xc3\xa9"); N("^\\w$", "-");
    M("^\\W$", "\xc3\xa9"); N("^\\W$", "a");
    {
        static const char *ws[] = {" ", "\t", "\v", "\f", "\n", "\r", "\xc2\xa0", "\xef\xbb\xbf", "\xe2\x80\xa9",
                                   "\xe2\x80\xa8", "\xe2\x80\x83", "\xe1\x9a\x80", "\xe2\x80\x8a", "\xe2\x80\xaf",
                                   "\xe2\x81\x9f", "\xe3\x80\x80"};
        static const char *nws[] = {"\x01", "\xe2\x80\x93", "a", "\xe2\x80\x8b", "\xc2\x85"};
        size_t i;
        for (i = 0; i < sizeof ws / sizeof ws[0]; i++) { M("^\\s$", ws[i]); N("^\\S$", ws[i]); }
        for (i = 0; i < sizeof nws / sizeof nws[0]; i++) { N("^\\s$", nws[i]); M("^\\S$", nws[i]); }
    }
}

static void test_groups_alt(void) {
    M("^(abc|def)$", "def"); N("^(abc|def)$", "abcdef"); M("^(?:ab)+$", "ababab"); N("^(?:ab)+$", "aba");
    M("^(?<year>\\d{4})-(?<month>\\d{2})$", "2024-05"); N("^(?<year>\\d{4})-(?<month>\\d{2})$", "2024-5");
    M("a|b|c", "xxc"); N("a|b|c", "xyz"); M("^(a|)$", ""); M("^(|a)$", "a"); M("^()$", "");
    M("^(a|b(c|d))+$", "abcabd"); N("^(a|b(c|d))+$", "abe"); M("^a|b$", "ax"); M("^a|b$", "xb");
    N("^a|b$", "xa"); M("x(?:)y", "xy"); M("^((((((a))))))$", "a");
}

static void test_quantifiers(void) {
    M("^a*$", ""); M("^a*$", "aaa"); N("^a*$", "abc"); M("^a+$", "a"); N("^a+$", "");
    M("^ab?c$", "ac"); M("^ab?c$", "abc"); N("^ab?c$", "abbc");
    M("^a{3}$", "aaa"); N("^a{3}$", "aa"); N("^a{3}$", "aaaa"); M("^a{2,}$", "aaaaa"); N("^a{2,}$", "a");
    M("^a{2,4}$", "aa"); M("^a{2,4}$", "aaaa"); N("^a{2,4}$", "aaaaa"); N("^a{2,4}$", "a");
    M("^a{0}$", ""); N("^a{0}$", "a"); M("^a{0,1}$", "a"); M("^(ab){2}$", "abab");
    M("^a*?$", "aa"); M("^a+?$", "aa"); M("^a??$", "a"); M("^a{1,3}?$", "aaa"); M("^a{2,}?$", "aaa");
    M("^(a*)*$", "aaa"); M("^(a*)+$", ""); M("^(a?){3}$", "a"); M("^(?:a|b)*c$", "ababc");
    M("[0-9]{2,}", "answer 12"); N("[0-9]{2,}", "a1b"); M("^\\d{3}-\\d{4}$", "555-1234");
    M("^(?:)*$", ""); M("^(?:)+x$", "x"); M("^(a|b)*?c$", "abbac");
    M("f.*o", "foo"); M("f.*o", "fooooo"); N("f.*o", "fxx"); M("^.*bar$", "foobar");
    M("a*", "bbb"); M("aaa*", "aaaa"); N("aaa*", "a");
}

static void test_assertions(void) {
    M("\\bfoo\\b", "a foo b"); N("\\bfoo\\b", "afoo"); M("\\bfoo\\b", "foo"); N("\\bfoo\\b", "foobar");
    M("\\Boo\\B", "foob"); N("\\Boo\\B", "oo"); N("^\\b$", "");
    N("\\b", ""); M("\\B", ""); M("\\b", "a"); N("\\b", "-- "); /* é is not \w, so \b before it needs a word character before it */
    N("\\b\xc3\xa9", "x \xc3\xa9"); M("\\b\xc3\xa9", "x\xc3\xa9"); M("\xc3\xa9\\B", "\xc3\xa9");
    M("a\\b", "a"); M("a\\b", "a-"); N("a\\b", "ab"); M("\\ba", "-a"); N("\\ba", "ba");
    M("^a$|^b$", "b");
}

static void test_unicode_props(void) {
    M("^\\p{L}+$", "h\xc3\xa9llo"); M("^\\p{Letter}+$", "Hello"); M("^\\p{Letter}+$", "\xcf\x80");
    N("^\\p{Letter}+$", "123"); M("^\\p{Lu}$", "A"); N("^\\p{Lu}$", "a"); M("^\\p{Ll}$", "\xc3\xa9");
    M("^\\p{Uppercase_Letter}\\p{Lowercase_Letter}$", "Ab"); M("^\\p{Lt}$", "\xc7\x85");
    M("^\\p{Titlecase_Letter}$", "\xc7\x85"); M("^\\p{Lm}$", "\xca\xb0"); M("^\\p{Modifier_Letter}$", "\xca\xb0");
    M("^\\p{Lo}$", "\xe4\xb8\xad"); M("^\\p{Other_Letter}$", "\xd7\x90"); M("^\\p{N}+$", "1\xc2\xbd\xe2\x85\xa0");
    M("^\\p{Number}$", "7"); M("^\\p{Nd}+$", "\xd9\xa3\xe0\xa7\xaa"); M("^\\p{Decimal_Number}$", "5");
    M("^\\p{digit}+$", "42"); M("^\\p{digit}+$", "\xe0\xa7\xaa\xe0\xa7\xa8"); N("^\\p{digit}+$", "-%#");
    M("^\\p{Nl}$", "\xe2\x85\xa0"); M("^\\p{Letter_Number}$", "\xe2\x85\xa0"); M("^\\p{No}$", "\xc2\xbd");
    M("^\\p{Other_Number}$", "\xc2\xb2"); M("^\\p{P}+$", "!?.,"); M("^\\p{Punctuation}$", "\xe2\x80\x94");
    N("^\\p{P}$", "+"); M("^\\p{S}+$", "+$\xe2\x82\xac"); M("^\\p{Symbol}$", "^"); N("^\\p{S}$", "!");
    M("^\\p{Z}$", " "); M("^\\p{Separator}$", "\xe2\x80\xa8"); M("^\\p{Zs}$", "\xc2\xa0");
    M("^\\p{Space_Separator}$", "\xe3\x80\x80"); N("^\\p{Zs}$", "\t"); M("^\\p{gc=Lu}$", "Q");
    M("^\\p{General_Category=Letter}$", "q"); M("^\\P{L}$", "1"); N("^\\P{L}$", "a");
    M("^\\P{Lu}+$", "abc"); M("^\\p{Cc}$", "\x01"); M("^\\p{Control}$", "\x7f");
    M("^\\p{Script=Greek}+$", "\xce\xb1\xce\xb2"); N("^\\p{Script=Greek}$", "a"); M("^\\p{sc=Latin}+$", "abc\xc3\xa9");
    M("^\\p{Script=Cyrillic}$", "\xd0\x96"); M("^\\p{Script=Han}$", "\xe4\xb8\xad"); N("^\\p{sc=Han}$", "a");
    M("^\\p{Any}$", "\xf0\x9f\x98\x80"); M("^\\p{ASCII}+$", "abc"); N("^\\p{ASCII}$", "\xc3\xa9");
    M("\\p{Letter}cole", "l'ecole"); M("\\p{Letter}cole", "l'\xc3\xa9" "cole"); N("\\p{Letter}cole", "L'\xc3\x89" "COLE");
    M("\\wcole", "l'ecole"); N("\\wcole", "l'\xc3\xa9" "cole"); N("[a-z]cole", "l'\xc3\xa9" "cole"); M("[a-z]cole", "l'ecole");
    E("\\p{Foo}", 0, "unknown Unicode property \\p{Foo} (Unicode 17.0.0)"); E("\\p{letter}", 0, "\\p{letter}");
    E("a\\p", 1, "\\p must be followed by {property}"); E("\\p{L", 0, "unterminated"); E("\\p{Script=Klingon}", 0, "Klingon");
}

static void S(const char *pat, int ok, const char *sub);

/* Binary properties, Script_Extensions and the tables' Unicode version
 * (17.0); tests/js/regex_unicode.test.js checks every name against V8. */
static void test_unicode_binary_props(void) {
    M("^\\p{Alphabetic}+$", "h\xc3\xa9llo"); N("^\\p{Alphabetic}+$", "a1"); M("^\\p{Alpha}$", "\xe2\x85\xa0"); /* Nl */
    M("^\\p{White_Space}+$", "\t \xe3\x80\x80\xc2\x85"); N("^\\p{White_Space}$", "\xe2\x80\x8b"); /* ZWSP is not */
    M("^\\p{space}$", "\n"); M("^\\p{WSpace}$", "\r"); N("^\\p{space}$", "x");
    M("^\\p{Emoji}$", "\xf0\x9f\x98\x80"); M("^\\p{Emoji}$", "#"); N("^\\p{Emoji}$", "a");
    M("^\\p{Emoji_Presentation}$", "\xf0\x9f\x98\x80"); N("^\\p{EPres}$", "\xc2\xa9"); M("^\\p{ExtPict}$", "\xc2\xa9");
    M("^\\p{Extended_Pictographic}$", "\xf0\x9f\xab\xa8"); /* U+1FAE8, Unicode 15.0 */
    M("^\\p{RI}{2}$", "\xf0\x9f\x87\xab\xf0\x9f\x87\xb7"); M("^\\p{EMod}$", "\xf0\x9f\x8f\xbb");
    M("^\\p{Lowercase}$", "\xc2\xaa"); N("^\\p{Lower}$", "A"); M("^\\p{Uppercase}$", "\xe2\x85\xa0"); N("^\\p{Upper}$", "a");
    M("^\\p{ID_Start}\\p{ID_Continue}*$", "x_1\xc2\xb7"); N("^\\p{IDS}$", "1"); M("^\\p{XIDC}+$", "a1_");
    M("^\\p{Hex_Digit}+$", "0aF\xef\xbc\xa1"); N("^\\p{AHex}$", "\xef\xbc\xa1"); M("^\\p{Math}$", "+"); N("^\\p{Math}$", "-");
    M("^\\p{Dash}$", "-"); M("^\\p{Ideographic}$", "\xe4\xb8\xad"); M("^\\p{NChar}$", "\xef\xbf\xbf"); N("^\\p{NChar}$", "\xef\xbf\xbd");
    M("^\\p{Default_Ignorable_Code_Point}$", "\xe2\x80\x8b"); M("^\\p{Bidi_M}$", "("); M("^\\p{CWKCF}$", "A"); N("^\\p{CWKCF}$", "a");
    M("^\\p{Pattern_White_Space}$", "\xe2\x80\x8e"); M("^\\p{Join_C}$", "\xe2\x80\x8d"); M("^\\p{Changes_When_Titlecased}$", "a");
    M("^\\p{Any}$", "\xf4\x8f\xbf\xbf"); M("^\\p{Assigned}$", "a"); N("^\\p{Assigned}$", "\xef\xbf\xbf");
    /* negation: \P, [^\p], [\P], [^\P] */
    M("^\\P{Alphabetic}+$", "1 !"); N("^\\P{Alphabetic}$", "\xc3\xa9"); M("^[^\\p{White_Space}]+$", "ab"); N("^[^\\p{White_Space}]+$", "a b");
    M("^[\\P{Emoji}]$", "a"); N("^[\\P{Emoji}]$", "1"); M("^[^\\P{Lu}]$", "A"); N("^[^\\P{Lu}]$", "a");
    M("^[\\p{L}\\p{White_Space}]+$", "x y"); N("^[\\p{L}\\p{White_Space}]+$", "x1"); M("^[\\P{Any}a]$", "a"); N("^[\\P{Any}a]$", "b");
    /* Unicode 17.0: U+10940 SIDETIC LETTER N01 (a script of 17.0), U+1FAE9 (an emoji of 16.0) */
    M("^\\p{sc=Sidetic}$", "\xf0\x90\xa5\x80"); M("^\\p{L}$", "\xf0\x90\xa5\x80"); M("^\\p{Script=Sidt}$", "\xf0\x90\xa5\x80");
    M("^\\p{ExtPict}$", "\xf0\x9f\xab\xa9"); M("^\\p{Assigned}$", "\xf0\x9f\xab\xa9"); N("^\\p{Cn}$", "\xf0\x90\xa5\x80");
    /* Script vs Script_Extensions: U+3001 IDEOGRAPHIC COMMA is sc=Common, scx={Bopo Hang Hani Hira Kana Yiii} */
    M("^\\p{scx=Han}$", "\xe3\x80\x81"); N("^\\p{sc=Han}$", "\xe3\x80\x81"); M("^\\p{sc=Common}$", "\xe3\x80\x81");
    N("^\\p{scx=Zyyy}$", "\xe3\x80\x81"); M("^\\p{Script_Extensions=Hiragana}$", "\xe3\x80\x81"); M("^\\p{scx=Latin}$", "a");
    M("^\\P{scx=Greek}$", "a"); N("^[^\\p{scx=Grek}]$", "\xce\xb1"); M("^\\p{sc=Qaai}$", "\xcc\x80"); /* U+0300: sc=Inherited, */
    N("^\\p{scx=Qaai}$", "\xcc\x80"); M("^\\p{scx=Latin}$", "\xcc\x80"); M("^\\p{scx=Zinh}$", "\xcc\x8f"); /* scx={Cher Copt ...} */
    M("^\\p{sc=Zzzz}$", "\xf0\xaf\xbf\xbf"); M("^\\p{Script=Unknown}$", "\xef\xbf\xbf"); N("^\\p{sc=Unknown}$", "a");
    /* names ECMA-262 does not have, or not in this form (V8 refuses each) */
    E("\\p{alphabetic}", 0, "unknown Unicode property"); E("\\p{Other_Alphabetic}", 0, "unknown");
    E("\\p{IDS_Unary_Operator}", 0, "unknown"); E("\\p{Alphabetic=Yes}", 0, "unknown"); E("\\p{gc=Alphabetic}", 0, "unknown");
    E("\\p{sc=Lu}", 0, "unknown"); E("\\p{Block=Basic_Latin}", 0, "unknown"); E("\\p{RGI_Emoji}", 0, "unknown");
    E("\\p{sc=Katakana_Or_Hiragana}", 0, "unknown"); E("\\p{scx=Hrkt}", 0, "unknown"); E("\\p{L&}", 0, "unknown");
    E("\\p{White Space}", 0, "unknown"); E("\\p{ Alpha}", 0, "unknown"); E("\\p{Script=}", 0, "unknown"); E("\\p{}", 0, "unknown");
    S("\\p{Alphabetic}", 1, NULL); S("^[\\p{Alpha}\\p{White_Space}]+$", 1, NULL); S("\\p{scx=Greek}", 1, NULL);
    S("\\p{Hyphen}", 0, "unknown Unicode property \\p{Hyphen}"); S("\\P{InCB}", 0, "\\P{InCB}");
    /* a property used again outside a class reuses its decoded ranges */
    M("^\\p{L}\\P{L}\\p{L}$", "a1b"); N("^\\p{L}\\P{L}\\p{L}$", "ab1"); M("^\\P{L}\\p{L}\\P{L}$", "1a2");
    {
        tg_regex *one = compile_ok("\\p{L}", 5), *three = compile_ok("\\p{L}x\\P{L}|\\p{L}", 17);
        check(one && three && one->npool > 0 && three->npool == one->npool, "one decoded copy a property", "\\p{L}x\\P{L}|\\p{L}", NULL);
        tg_regex_free(one);
        tg_regex_free(three);
    }
}

/* Every set of every name decodes to sorted, disjoint, non-adjacent ranges
 * within U+0000..U+10FFFF, and a one-range class of it matches its ends. */
static void test_unicode_tables(void) {
    static const int kinds[] = {TG_UPROP_GC, TG_UPROP_BINARY, TG_UPROP_SCRIPT, TG_UPROP_SCX};
    const char *names[400];
    size_t k, i, total = 0;
    check(strcmp(tg_unicode_version, "17.0.0") == 0, "Unicode version", tg_unicode_version, NULL);
    for (k = 0; k < 4; k++) {
        size_t n = tg_uprop_names(kinds[k], names, 400);
        check(n > 0 && n <= 400, "names of a kind", "", NULL);
        for (i = 0; i < n && i < 400; i++) {
            const tg_uprop *u = tg_uprop_lookup(kinds[k], names[i], strlen(names[i]));
            uint32_t c, j, *r;
            int ok;
            if (!u) { check(0, "lookup of a listed name", names[i], NULL); continue; }
            c = tg_uprop_count(u);
            r = malloc(2 * (size_t)c * sizeof *r + 1);
            tg_uprop_decode(u, r);
            ok = c > 0 && r[2 * c - 1] <= 0x10FFFF;
            for (j = 0; j < c; j++) {
                if (r[2 * j] > r[2 * j + 1]) ok = 0;
                if (j && r[2 * j] <= r[2 * j - 1] + 1) ok = 0;
            }
            check(ok, "decoded set is sorted, disjoint, non-adjacent", names[i], NULL);
            free(r);
            total++;
        }
    }
    check(total > 800, "every kind has its names", "", NULL);
    check(tg_uprop_lookup(TG_UPROP_GC, "Lu", 2) != NULL && tg_uprop_lookup(TG_UPROP_BINARY, "Lu", 2) == NULL,
          "lookup stays within its kind", "Lu", NULL);
}

static void test_utf8_subjects(void) {
    mn("b", 1, "a\0b", 3, 1); mn("^a.b$", 5, "a\0b", 3, 1); mn("^a\\x00b$", 8, "a\0b", 3, 1);
    mn("^[^\\x00]*$", 10, "a\0b", 3, 0); mn("^.*$", 4, "\0\0", 2, 1); mn("c", 1, "a\0b", 3, 0);
    /* invalid bytes behave as U+FFFD */
    M("^.$", "\xff"); M("^\\uFFFD$", "\xff"); M("^\\uFFFD\\uFFFD\\uFFFD$", "\xed\xa0\x80"); /* an encoded surrogate is three bad bytes */
    M("^\\uFFFD\\($", "\xc3\x28"); M("^\\uFFFDa$", "\x80" "a"); M("\\uFFFD", "ab\xed\xa0\x80");
    M("^[^a]$", "\xfe"); M("^\\p{L}+\\uFFFD{2}$", "abc\xe2\x82"); N("^\\p{L}+$", "abc\xe2\x82");
    M("^\xc3\xa9+$", "\xc3\xa9\xc3\xa9"); N("\xc3\xa9", "\xc3" "x" "\xa9");
}

static void test_rejected(void) {
    E("(a)\\1", 3, "backreference \\1 is not supported: toolgate matches patterns in linear time");
    E("\\12", 0, "backreference \\12"); E("(?<n>a)\\k<n>", 7, "named backreference \\k<...> is not supported");
    E("a(?=b)", 1, "lookahead (?=...) is not supported"); E("a(?!b)", 1, "lookahead (?!...) is not supported");
    E("(?<=a)b", 0, "lookbehind (?<=...) is not supported"); E("(?<!a)b", 0, "lookbehind (?<!...) is not supported");
    E("x((?=a))", 2, "lookahead");
}

/* Syntax only (format "regex"): what compile refuses to run is still a
 * regex; what ECMA-262 `u` mode refuses is not. */
static void S(const char *pat, int ok, const char *sub) {
    tg_regex_error err;
    int rc = tg_regex_syntax_ok(&g_alloc, pat, strlen(pat), NULL, &err);
    char buf[300];
    snprintf(buf, sizeof buf, "rc %d message \"%s\"", rc, err.message);
    check(ok ? rc == 0 : rc == -1 && strstr(err.message, sub) != NULL, ok ? "syntax ok" : "syntax refused", pat, buf);
}

static void test_syntax_only(void) {
    S("(a)\\1", 1, NULL); S("(?<n>a)\\k<n>", 1, NULL); S("(?<=a+)b", 1, NULL); S("(?<!a)b", 1, NULL);
    S("a(?=b)c", 1, NULL); S("a(?!b)", 1, NULL); S("((a)(b))\\3", 1, NULL); S("(?:(a))\\1", 1, NULL);
    S("\\k<n>(?<n>a)", 1, NULL); /* a forward reference is still a reference */
    S("(a)\\2", 0, "backreference \\2 names no group"); S("(?:a)\\1", 0, "names no group");
    S("(?=a)\\1", 0, "names no group"); S("(?<n>a)\\k<m>", 0, "\\k<m> names no group");
    S("\\k<n>", 0, "names no group"); S("(?<n>a)\\k<n", 0, "invalid named backreference");
    S("a(?=b)+", 0, "assertion cannot be quantified"); S("(?<=a){2}", 0, "assertion cannot be quantified");
    S("(?=a", 0, "unterminated group"); S("[\\1]", 0, "in a character class"); S("^*", 0, "cannot be quantified");
    S("(a)|\\1x", 1, NULL); S("\\d+(?=€)", 1, NULL);
    S("\\p{scx=Greek}", 1, NULL); M("\\p{scx=Greek}", "\xce\xb1"); M("^\\P{Script_Extensions=Han}$", "a");
}

static void test_syntax_errors(void) {
    E("(abc", 0, "unterminated group"); E("abc)", 3, "unmatched ')'"); E("a(b))", 4, "unmatched ')'");
    E("[abc", 0, "unterminated character class"); E("x[", 1, "unterminated character class");
    E("*a", 0, "nothing to repeat"); E("a|+", 2, "nothing to repeat"); E("a**", 2, "nothing to repeat");
    E("a+*", 2, "nothing to repeat"); E("a???", 3, "nothing to repeat"); E("(*)", 1, "nothing to repeat");
    E("{2}", 0, "nothing to repeat"); E("a{2}{3}", 4, "nothing to repeat");
    E("a{", 1, "incomplete quantifier"); E("a{1", 1, "incomplete quantifier"); E("a{,3}", 1, "incomplete quantifier");
    E("a{x}", 1, "incomplete quantifier"); E("{", 0, "lone '{'"); E("a}", 1, "lone '}'"); E("a]", 1, "lone ']'");
    E("a{3,2}", 1, "numbers out of order"); E("[z-a]", 1, "range out of order"); E("[\\d-z]", 1, "range endpoint");
    E("[a-\\w]", 1, "range endpoint"); E("\\", 0, "lone backslash"); E("ab\\", 2, "lone backslash");
    E("\\x4", 0, "invalid \\x escape"); E("\\u12", 0, "invalid \\u escape"); E("\\u{110000}", 0, "above U+10FFFF");
    E("\\u{}", 0, "invalid \\u{...}"); E("\\c1", 0, "\\c must be followed by an ASCII letter");
    E("\\a", 0, "invalid escape \\a"); E("x\\e", 1, "invalid escape \\e"); E("\\A", 0, "not an ECMA-262 escape");
    E("\\z", 0, "not an ECMA-262 escape"); E("\\01", 0, "octal"); E("^*", 1, "assertion cannot be quantified");
    E("\\b+", 2, "assertion cannot be quantified"); E("[\\B]", 1, "\\B is not allowed");
    E("[\\1]", 1, "invalid escape \\1 in a character class"); E("(?i)a", 0, "invalid group");
    E("(?<>a)", 0, "invalid group name"); E("(?<1a>a)", 0, "invalid group name"); E("(?", 0, "invalid group");
    E("\\k", 0, "invalid escape \\k"); E("a\xff", 1, "invalid UTF-8 in pattern"); E("\\\xc3\xa9", 0, "non-ASCII");
}

static void test_limits(void) {
    tg_regex_limits l = tg_regex_default_limits();
    tg_regex *re = NULL;
    tg_regex_error err;
    char big[5000];
    check(l.max_pattern_bytes == 4096 && l.max_states == 10000, "defaults", "", NULL);
    E("a{10001}", 0, "over the limit of 10000"); E("(a{100}){101}", 0, "NFA states"); E("((a{1000}){1000}){1000}", 0, "NFA states");
    E("a{999999999999}", 1, "quantifier count above 1000000"); E("a{1,99999999999}", 1, "count above");
    E("a{1000000}", 0, "over the limit"); E("(?:a{0,5000}){0,5000}", 0, "over the limit");
    M("^a{1000}$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    memset(big, 'a', sizeof big);
    check(tg_regex_compile(&g_alloc, big, 4097, NULL, &re, &err) == -1 && re == NULL &&
              strstr(err.message, "over the limit of 4096") != NULL, "pattern length limit", "aaaa...", err.message);
    check(tg_regex_compile(&g_alloc, big, 4096, NULL, &re, &err) == 0, "pattern at the length limit", "aaaa...", err.message);
    tg_regex_free(re);
    l.max_states = 20;
    check(tg_regex_compile(&g_alloc, "a{19}", 5, &l, &re, &err) == 0, "custom limit ok", "a{19}", err.message);
    tg_regex_free(re);
    check(tg_regex_compile(&g_alloc, "a{20}", 5, &l, &re, &err) == -1, "custom limit over", "a{20}", NULL);
    l.max_pattern_bytes = 3;
    check(tg_regex_compile(&g_alloc, "abcd", 4, &l, &re, &err) == -1, "custom length limit", "abcd", NULL);
    {
        char deep[300];
        int i;
        for (i = 0; i < 100; i++) { deep[i] = '('; deep[100 + i] = ')'; }
        deep[200] = 0;
        E(deep, (size_t)-1, "nested deeper");
    }
}

/* Linear time, counted rather than timed: each engine searches under a
 * step budget of a fixed number of steps per subject byte and program
 * instruction (the Pike VM steps every live thread, at most one per
 * instruction; the DFA charges the states it builds, and takes one
 * transition a byte), and must answer within it. Exponential or quadratic
 * work on these subjects would need millions of times more. */
static void linear(const char *pat, const char *s, size_t len, int want) {
    tg_regex *re = compile_ok(pat, strlen(pat));
    char buf[200];
    if (!re) return;
    size_t n = tg_regex_scratch_size(re);
    void *scratch = malloc(n);
    const unsigned char *u = (const unsigned char *)s;
    uint64_t budget = (uint64_t)(len + 1) * (tg_regex_program_size(re) + 4) * 4;
    uint64_t left_any = budget, left_pike = budget, left_dfa = budget;
    int any = tg_regex_search_bounded(re, s, len, scratch, &left_any);
    int pike = rx_pike_run(re, u, len, scratch, 0, &re->start, 1, 0, &left_pike);
    int dfa = rx_dfa_search(re, u, len, scratch, &left_dfa);
    snprintf(buf, sizeof buf, "want %d got %d/%d/%d on %zu bytes, steps %llu/%llu/%llu of %llu", want, any, pike, dfa, len,
             (unsigned long long)(budget - left_any), (unsigned long long)(budget - left_pike),
             (unsigned long long)(budget - left_dfa), (unsigned long long)budget);
    check(any == want && pike == want && dfa == want, "linear time", pat, buf);
    free(scratch);
    tg_regex_free(re);
}

static void test_redos(void) {
    size_t n = 100000, i;
    char *s = malloc(n + 2);
    for (i = 0; i < n; i++) s[i] = 'a';
    s[n] = '!';
    s[n + 1] = 0;
    linear("^(a+)+$", s, n + 1, 0);
    linear("^(a+)+$", s, n, 1);
    linear("(a|aa)*b", s, n + 1, 0);
    linear("^(a|a)*$", s, n + 1, 0);
    linear("^(a*)*b$", s, n + 1, 0);
    linear("(a*)*(b|c)", s, n + 1, 0);
    linear("^(\\w+\\s?)*$", s, n + 1, 0);
    linear("^(a?){30}a{30}$", s, 30, 1);
    linear("(.*a){20}", s, n + 1, 1);
    linear("(x+x+)+y", s, n + 1, 0);
    linear("a{100}!", s, n + 1, 1);
    linear("\\bb\\b", s, n + 1, 0);
    linear("^(?:a|b|c|d|e|f|g)*$", s, n + 1, 0);
    linear("[^a]", s, n, 0);
    free(s);
}

/* Subjects long enough to fill the DFA cache: flushes and the Pike fallback. */
static void test_dfa_cache(void) {
    size_t n = 20000, i;
    char *s = malloc(n + 1);
    unsigned x = 12345;
    for (i = 0; i < n; i++) { x = x * 1103515245u + 12345u; s[i] = (x >> 16) & 1 ? 'a' : 'b'; }
    s[n] = 0;
    linear("[ab]*a[ab]{12}c", s, n, 0); /* 2^13 DFA states: thrashes */
    linear("a[ab]{12}b$", s, n, s[n - 1] == 'b' && s[n - 14] == 'a');
    linear("(?:a|b)*bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", s, n, 0);
    linear("\\ba", s, n, s[0] == 'a');
    linear("\\Bb\\b", s, n, s[n - 1] == 'b' && s[n - 2] != ' ');
    s[n - 1] = 'c';
    linear("[ab]*a[ab]{12}c", s, n, s[n - 14] == 'a');
    linear("b[^c]*c$", s, n, 1);
    for (i = 0; i < n; i += 2) { s[i] = (char)0xc3; s[i + 1] = (char)0xa9; } /* é x 10000 */
    linear("^\\p{L}+$", s, n, 1);
    linear("^\\p{Lu}+$", s, n, 0);
    linear("\\u00e9{3}x", s, n, 0);
    linear("(?:\\u00e9|\\u00e8)*\\u00e8", s, n, 0);
    linear("(?:\\u00e9\\u00e9)+$", s, n, 1);
    s[n / 2] = 'x';
    linear("\\u00e9x\\u00e9", s, n, 0);
    linear("x\\u00e9", s, n, 0); /* x replaced the first byte of an é: its second byte is U+FFFD */
    linear("x\\uFFFD\\u00e9", s, n, 1);
    free(s);
}

static void test_alloc_failures(void) {
    static const char *pats[] = {"^(?<y>\\d{4})-[\\p{L}_]+(a|b|c)*\\bfoo$", "abc", "[^\\P{Lu}\\d]x", ""};
    size_t p;
    for (p = 0; p < sizeof pats / sizeof pats[0]; p++) {
        long k;
        int ok = 0;
        for (k = 0; k < 200 && !ok; k++) {
            tg_regex *re = NULL;
            tg_regex_error err;
            long before = g_count.live;
            int rc;
            g_count.calls = 0;
            g_count.fail_at = k;
            rc = tg_regex_compile(&g_alloc, pats[p], strlen(pats[p]), NULL, &re, &err);
            g_count.fail_at = -1;
            if (rc == 0) { ok = 1; tg_regex_free(re); }
            else check(re == NULL && strstr(err.message, "out of memory") != NULL, "oom reported", pats[p], err.message);
            check(g_count.live == before, "no leak after failure injection", pats[p], NULL);
        }
        check(ok, "compiles once allocations succeed", pats[p], NULL);
    }
}

static void test_misc_api(void) {
    tg_regex *re = NULL;
    tg_regex_error err;
    E("(?<a>x)(?<a>y)", 7, "duplicate group name <a>");
    M("^(?<a>x)(?<b>y)$", "xy");
    check(tg_regex_compile(&g_alloc, "(", 1, NULL, &re, NULL) == -1 && re == NULL, "NULL err", "(", NULL);
    check(tg_regex_compile(&g_alloc, NULL, 0, NULL, &re, &err) == 0, "NULL empty pattern", "", err.message);
    check(tg_regex_search(re, NULL, 0, NULL) == 1, "NULL empty subject", "", NULL);
    tg_regex_free(re);
    check(tg_regex_compile(&g_alloc, "^a*$", 4, NULL, &re, &err) == 0, "compile", "^a*$", err.message);
    {
        void *scr = malloc(tg_regex_scratch_size(re));
        check(tg_regex_search(re, NULL, 0, scr) == 1, "NULL empty subject (VM)", "^a*$", NULL);
        free(scr);
    }
    tg_regex_free(re);
    check(tg_regex_compile(&g_alloc, "a+", 2, NULL, &re, &err) == 0 && tg_regex_program_size(re) <= 4, "small program",
          "a+", NULL);
    check(tg_regex_scratch_size(re) % 8 == 0 && tg_regex_scratch_size(re) > 0, "scratch size", "a+", NULL);
    tg_regex_free(re);
    tg_regex_free(NULL);
    /* explicit length: pattern bytes after len are ignored */
    mn("abX", 2, "xab", 3, 1);
}

/* A fast path (exact, prefix, suffix, literal, run) is work like any other
 * search: it lowers the budget and ends with -1 when none is left, so P
 * patternProperties over N names stay within the evaluation's step budget
 * (they went uncharged: P x N searches unbounded). */
static void test_fast_paths_charge_budget(void) {
    static const struct { const char *pat, *subj; uint64_t cost; } C[] = {
        {"^k12$", "k12", 1},       /* exact */
        {"^k1", "k12", 1},         /* prefix */
        {"12$", "k12", 1},         /* suffix */
        {"k1", "xxk12", 1},        /* literal: one a search, however long the subject */
        {"^a{1,9}$", "aaaa", 1},   /* run: likewise */
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        tg_regex *re = NULL;
        tg_regex_error err;
        check(tg_regex_compile(&g_alloc, C[i].pat, strlen(C[i].pat), NULL, &re, &err) == 0, "compile", C[i].pat,
              err.message);
        if (!re) continue;
        check(!tg_regex_needs_scratch(re), "takes a fast path", C[i].pat, NULL);
        uint64_t budget = 100;
        check(tg_regex_search_bounded(re, C[i].subj, strlen(C[i].subj), NULL, &budget) == 1 && budget == 100 - C[i].cost,
              "fast path charged", C[i].pat, NULL);
        budget = C[i].cost - 1;
        check(tg_regex_search_bounded(re, C[i].subj, strlen(C[i].subj), NULL, &budget) == -1, "fast path out of budget",
              C[i].pat, NULL);
        check(tg_regex_search(re, C[i].subj, strlen(C[i].subj), NULL) == 1, "unbounded search unchanged", C[i].pat, NULL);
        tg_regex_free(re);
    }
}

/* JSON-Schema-Test-Suite draft2020-12 pattern.json / patternProperties.json */
static void test_json_schema_suite(void) {
    M("^a*$", "aaa"); N("^a*$", "abc"); M("a+", "xxaayy");
    M("f.*o", "foo"); M("f.*o", "foooooo"); M("a*", "a"); M("aaa*", "aaaa"); N("aaa*", "a");
    M("[0-9]{2,}", "a31b"); N("[0-9]{2,}", "answer 1"); M("X_", "a_X_3"); N("X_", "a_x_3");
    M("f.*", "foo"); M("b.*", "bar"); M("b.*", "foobar"); M("^.*bar$", "foobar");
    M("^\\p{Letter}+$", "\xcf\x80"); N("^\\p{Letter}+$", "123");
}

int main(void) {
    test_literals();
    test_escapes();
    test_classes();
    test_class_escapes();
    test_groups_alt();
    test_quantifiers();
    test_assertions();
    test_unicode_props();
    test_unicode_binary_props();
    test_unicode_tables();
    test_utf8_subjects();
    test_rejected();
    test_syntax_errors();
    test_syntax_only();
    test_limits();
    test_redos();
    test_dfa_cache();
    test_alloc_failures();
    test_misc_api();
    test_fast_paths_charge_budget();
    test_json_schema_suite();
    check(g_count.live == 0, "no leaked bytes", "", NULL);
    return tg_test_finish("regex");
}
