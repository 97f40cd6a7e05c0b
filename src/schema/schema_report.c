/* schema_report.c - the words of a validation error: the message a model
 * can act on ("expected integer, got string \"5\""), its instance location
 * (JSON Pointer from path tokens) and its keyword location, rendered as one
 * member of a BASIC output array or as "loc: message" text.
 *
 * Shared by the evaluator (schema_eval.c) and the one-pass checker
 * (schema_stream.c), so an error reads the same whichever found it. */
#include <string.h>

#include "schema_internal.h"
#include "../base/utf8.h"

static const char *const type_names[] = {"null", "boolean", "object", "array", "number", "string", "integer"};

static void put_ptr_token(tg_buf *b, const char *s, size_t len) {
    size_t i, run = 0;
    for (i = 0; i < len; i++) {
        if (s[i] != '~' && s[i] != '/') continue;
        tg_buf_append(b, s + run, i - run);
        tg_buf_append(b, s[i] == '~' ? "~0" : "~1", 2);
        run = i + 1;
    }
    tg_buf_append(b, s + run, len - run);
}

/* "integer 5", "string \"ab\"" (cut at 40 bytes), "object", ... */
static void describe(tg_buf *b, const cJSON *v) {
    if (tg_sj_IsNull(v)) tg_buf_puts(b, "null");
    else if (tg_sj_IsTrue(v)) tg_buf_puts(b, "boolean true");
    else if (tg_sj_IsFalse(v)) tg_buf_puts(b, "boolean false");
    else if (tg_sj_IsObject(v)) tg_buf_puts(b, "object");
    else if (tg_sj_IsArray(v)) tg_buf_puts(b, "array");
    else if (tg_sj_IsNumber(v)) {
        const char *lex = v->valuestring;
        size_t l = lex ? tg_json_strlen(lex) : 0;
        tg_buf_puts(b, tg_json_is_integer(v) ? "integer " : "number ");
        if (lex) tg_buf_append(b, lex, l > 40 ? 40 : l);
        else tg_buf_printf(b, "%.17g", v->valuedouble);
        if (l > 40) tg_buf_puts(b, "...");
    } else if (tg_sj_IsString(v)) {
        size_t l = tg_json_strlen(v->valuestring), cut = l;
        tg_buf_puts(b, "string ");
        if (cut > 40) {
            cut = 40;
            while (cut > 0 && ((unsigned char)v->valuestring[cut] & 0xC0) == 0x80) cut--;
        }
        tg_json_write_string(b, v->valuestring, cut);
        if (cut < l) tg_buf_puts(b, "...");
    }
}

static void put_value(tg_buf *b, const cJSON *v, const tg_allocator *a) {
    tg_buf t;
    tg_buf_init(&t, *a, 0);
    tg_json_write(&t, v);
    if (t.len > 60) {
        size_t cut = 57; /* on a character boundary: the lengths beside the text count characters */
        while (cut > 0 && ((unsigned char)t.data[cut] & 0xC0) == 0x80) cut--;
        tg_buf_append(b, t.data, cut);
        tg_buf_puts(b, "...");
    } else if (t.data) {
        tg_buf_append(b, t.data, t.len);
    }
    tg_buf_free(&t);
}

/* The part of a message that depends on the instance, or with mark set
 * (tg_sreport_site), TG_SDYN_MARK in its place. */
static void dyn_value(tg_buf *msg, const cJSON *inst, int mark) {
    if (mark) tg_buf_putc(msg, TG_SDYN_MARK);
    else describe(msg, inst);
}

static void dyn_count(tg_buf *msg, size_t a, int mark) {
    if (mark) tg_buf_putc(msg, TG_SDYN_MARK);
    else tg_buf_printf(msg, "%zu", a);
}

static void dyn_key(tg_buf *msg, const char *key, size_t klen, int mark) {
    if (mark) tg_buf_putc(msg, TG_SDYN_MARK);
    else tg_json_write_string(msg, key, klen);
}

static void message(tg_buf *msg, const tg_sins *in, const cJSON *inst, size_t a, size_t b, const char *key,
                    size_t klen, const tg_allocator *alloc, int mark) {
    size_t i;
    switch ((tg_sop)in->op) {
    case TG_OP_FALSE: tg_buf_puts(msg, "no value is allowed here (the schema is false)"); break;
    case TG_OP_TYPE: {
        int first = 1;
        tg_buf_puts(msg, "expected ");
        for (i = 0; i < 7; i++) if (in->u.mask & (1u << i)) {
            if (!first) tg_buf_puts(msg, " or ");
            tg_buf_puts(msg, type_names[i]);
            first = 0;
        }
        if (first) tg_buf_puts(msg, "nothing");
        tg_buf_puts(msg, ", got ");
        dyn_value(msg, inst, mark);
        break;
    }
    case TG_OP_CONST: case TG_OP_ENUM:
        tg_buf_puts(msg, in->op == TG_OP_CONST ? "expected the constant " : "expected one of ");
        put_value(msg, in->u.val.value, alloc);
        tg_buf_puts(msg, ", got ");
        dyn_value(msg, inst, mark);
        break;
    case TG_OP_MULTIPLE_OF:
        dyn_value(msg, inst, mark);
        tg_buf_printf(msg, " is not a multiple of %s", in->u.num.lex);
        break;
    case TG_OP_MAXIMUM: case TG_OP_EXCL_MAXIMUM: case TG_OP_MINIMUM: case TG_OP_EXCL_MINIMUM:
        tg_buf_printf(msg, "expected a number %s %s, got ",
                      in->op == TG_OP_MAXIMUM ? "at most" : in->op == TG_OP_EXCL_MAXIMUM ? "less than"
                      : in->op == TG_OP_MINIMUM ? "at least" : "greater than", in->u.num.lex);
        dyn_value(msg, inst, mark);
        break;
    case TG_OP_MAX_LENGTH: case TG_OP_MIN_LENGTH:
        tg_buf_printf(msg, "expected a string of %s %zu characters, got ",
                      in->op == TG_OP_MAX_LENGTH ? "at most" : "at least", in->u.count);
        dyn_count(msg, a, mark);
        break;
    case TG_OP_PATTERN: dyn_value(msg, inst, mark); tg_buf_puts(msg, " does not match the pattern"); break;
    case TG_OP_FORMAT: dyn_value(msg, inst, mark); tg_buf_puts(msg, " is not a valid format"); break;
    case TG_OP_MAX_ITEMS: case TG_OP_MIN_ITEMS: case TG_OP_MAX_PROPS: case TG_OP_MIN_PROPS: {
        int mx = in->op == TG_OP_MAX_ITEMS || in->op == TG_OP_MAX_PROPS;
        int arr = in->op == TG_OP_MAX_ITEMS || in->op == TG_OP_MIN_ITEMS;
        tg_buf_printf(msg, "expected %s %zu %s, got ", mx ? "at most" : "at least", in->u.count,
                      arr ? "items" : "properties");
        dyn_count(msg, a, mark);
        break;
    }
    case TG_OP_UNIQUE_ITEMS: tg_buf_printf(msg, "items %zu and %zu are equal; items must be unique", a, b); break;
    case TG_OP_CONTAINS:
        if (a < in->u.contains.min)
            tg_buf_printf(msg, "expected at least %zu item(s) matching contains, found %zu", in->u.contains.min, a);
        else
            tg_buf_printf(msg, "expected at most %zu item(s) matching contains, found more", in->u.contains.max);
        break;
    case TG_OP_REQUIRED:
        tg_buf_puts(msg, "missing required property ");
        tg_json_write_string(msg, in->u.req.names[a].s, in->u.req.names[a].len);
        break;
    case TG_OP_PROPS:
        tg_buf_puts(msg, "property ");
        dyn_key(msg, key, klen, mark);
        tg_buf_puts(msg, " is not allowed");
        break;
    case TG_OP_DEP_REQUIRED: {
        const tg_sdep *d = &in->u.deps.deps[a];
        tg_buf_puts(msg, "property ");
        tg_json_write_string(msg, d->required[b].s, d->required[b].len);
        tg_buf_puts(msg, " is required when ");
        tg_json_write_string(msg, d->name.s, d->name.len);
        tg_buf_puts(msg, " is present");
        break;
    }
    case TG_OP_ANY_OF: case TG_OP_ONE_OF:
        if (a > 1) tg_buf_puts(msg, "value matches more than one subschema of oneOf");
        else tg_buf_printf(msg, "value does not match any subschema of %s", in->op == TG_OP_ONE_OF ? "oneOf" : "anyOf");
        break;
    case TG_OP_NOT: tg_buf_puts(msg, "value must not match the schema in not"); break;
    case TG_OP_UNEVAL_ITEMS: tg_buf_printf(msg, "item %zu is not allowed (unevaluated)", a); break;
    case TG_OP_UNEVAL_PROPS:
        tg_buf_puts(msg, "property ");
        dyn_key(msg, key, klen, mark);
        tg_buf_puts(msg, " is not allowed (unevaluated)");
        break;
    default: tg_buf_puts(msg, "invalid"); break;
    }
}

void tg_sreport_init(tg_sreport *r, const tg_schema_errors *to, int text, const tg_allocator *alloc) {
    r->out = to ? to->out : NULL;
    r->lens = to ? to->lens : NULL;
    r->text = text;
    r->n_errors = 0;
    r->alloc = alloc;
    tg_buf_init(&r->msg, *alloc, 0);
    tg_buf_init(&r->il, *alloc, 0);
}

void tg_sreport_free(tg_sreport *r) {
    tg_buf_free(&r->msg);
    tg_buf_free(&r->il);
}

/* One record: the field's bytes to out, its length to lens. */
static void put_field(tg_sreport *r, const char *s, size_t n) {
    uint32_t u = (uint32_t)tg_utf16_length((const unsigned char *)s, n);
    tg_buf_append(r->out, s, n);
    tg_buf_append(r->lens, &u, sizeof u);
}

const char *tg_sloc_kw(tg_arena *a, const char *base, const char *kw) {
    size_t bl = base ? strlen(base) : 0, kl = strlen(kw);
    char *r = tg_arena_alloc(a, bl + kl + 2);
    if (!r) return NULL;
    if (bl) memcpy(r, base, bl);
    r[bl] = '/';
    memcpy(r + bl + 1, kw, kl + 1);
    return r;
}

int tg_sreport_error(tg_sreport *r, const tg_sins *in, const cJSON *inst, size_t a, size_t b, const char *key,
                     size_t klen, const char *loc, const tg_spath *path, size_t npath) {
    tg_buf *o = r->out, *il = &r->il;
    size_t i;
    tg_buf_reset(&r->msg);
    message(&r->msg, in, inst, a, b, key, klen, r->alloc, 0);
    tg_buf_reset(il);
    for (i = 0; i < npath; i++) {
        tg_buf_putc(il, '/');
        if (path[i].key) put_ptr_token(il, path[i].key, path[i].len);
        else {
            char d[24];
            size_t k = sizeof d, x = path[i].idx;
            do d[--k] = (char)('0' + x % 10); while ((x /= 10) != 0);
            tg_buf_append(il, d + k, sizeof d - k);
        }
    }
    if (key) {
        tg_buf_putc(il, '/');
        put_ptr_token(il, key, klen);
    }
    if (r->lens) {
        put_field(r, il->data ? il->data : "", il->len);
        put_field(r, loc, strlen(loc));
        put_field(r, r->msg.data ? r->msg.data : "", r->msg.len);
    } else if (r->text) {
        if (r->n_errors) tg_buf_puts(o, "; ");
        if (il->len) tg_buf_append(o, il->data, il->len); else tg_buf_putc(o, '/');
        tg_buf_puts(o, ": ");
        if (r->msg.len) tg_buf_append(o, r->msg.data, r->msg.len);
        tg_buf_puts(o, " (metaschema ");
        tg_buf_puts(o, loc && *loc ? loc : "/");
        tg_buf_putc(o, ')');
    } else {
        static const char K1[] = ",{\"instanceLocation\":", K2[] = ",\"keywordLocation\":", K3[] = ",\"message\":";
        if (r->n_errors) tg_buf_append(o, K1, sizeof K1 - 1);
        else tg_buf_append(o, K1 + 1, sizeof K1 - 2);
        tg_json_write_string(o, il->data ? il->data : "", il->len);
        tg_buf_append(o, K2, sizeof K2 - 1);
        tg_json_write_string(o, loc, strlen(loc));
        tg_buf_append(o, K3, sizeof K3 - 1);
        tg_json_write_string(o, r->msg.data ? r->msg.data : "", r->msg.len);
        tg_buf_putc(o, '}');
    }
    r->n_errors++;
    return il->failed || r->msg.failed || o->failed || (r->lens && r->lens->failed) ? -1 : 0;
}

int tg_sreport_dyn(const tg_sins *in, int with_key, size_t a, size_t *variant) {
    *variant = 0;
    switch ((tg_sop)in->op) {
    case TG_OP_TYPE: case TG_OP_CONST: case TG_OP_ENUM: case TG_OP_MULTIPLE_OF:
    case TG_OP_MAXIMUM: case TG_OP_EXCL_MAXIMUM: case TG_OP_MINIMUM: case TG_OP_EXCL_MINIMUM:
    case TG_OP_PATTERN: case TG_OP_FORMAT:
        return with_key ? -1 : TG_SDYN_VALUE;
    case TG_OP_MAX_LENGTH: case TG_OP_MIN_LENGTH:
    case TG_OP_MAX_ITEMS: case TG_OP_MIN_ITEMS: case TG_OP_MAX_PROPS: case TG_OP_MIN_PROPS:
        return with_key ? -1 : TG_SDYN_COUNT;
    case TG_OP_PROPS: case TG_OP_UNEVAL_PROPS:
        return with_key ? TG_SDYN_KEY : -1;
    case TG_OP_REQUIRED:
        if (with_key || a >= in->u.req.n) return -1;
        *variant = a;
        return TG_SDYN_NONE;
    case TG_OP_FALSE: case TG_OP_NOT:
        return with_key ? -1 : TG_SDYN_NONE;
    case TG_OP_ANY_OF: case TG_OP_ONE_OF:
        if (with_key) return -1;
        *variant = a > 1 ? 2 : 0; /* (an a that chooses the same words) */
        return TG_SDYN_NONE;
    default:
        return -1;
    }
}

int tg_sreport_site(tg_sreport *r, const tg_sins *in, size_t variant, const char *loc) {
    tg_buf_reset(&r->msg);
    /* (the instance is never read with mark set; variant is the a that
     * chose the static words: the required name, or oneOf's "more than one") */
    message(&r->msg, in, NULL, variant, 0, NULL, 0, r->alloc, 1);
    put_field(r, loc, strlen(loc));
    put_field(r, r->msg.data ? r->msg.data : "", r->msg.len);
    return r->msg.failed || r->out->failed || r->lens->failed ? -1 : 0;
}
