/* common.h - what the native drivers share: reading a file whole. */
#ifndef TG_BENCH_NATIVE_COMMON_H
#define TG_BENCH_NATIVE_COMMON_H

#include <stdio.h>
#include <stdlib.h>

/* The file's bytes (NUL-terminated, *n without the NUL); exits on failure. */
static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    long len = ftell(f);
    rewind(f);
    char *b = malloc((size_t)len + 1);
    if (!b || fread(b, 1, (size_t)len, f) != (size_t)len) exit(2);
    fclose(f);
    b[len] = '\0';
    *n = (size_t)len;
    return b;
}

#endif
