/* replay.c - runs a harness's LLVMFuzzerTestOneInput over saved inputs,
 * without libFuzzer: how ctest keeps every harness compiling against the
 * current API and its oracles holding on fuzz/regress/<harness>/ (seeds and
 * past findings), under ASan/UBSan and valgrind like any C test.
 * usage: fuzz_<harness>_replay [PATH...]   (files, or directories of files;
 * none: TG_FUZZ_REGRESS, the harness's directory, compiled in by CMake) */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads a whole file; NULL (and a message) when it cannot. */
static uint8_t *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return NULL;
    }
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0, got;
    do {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
    } while (got);
    fclose(f);
    *n = len;
    return buf;
}

/* One input, given to the harness in a buffer of exactly its size (ASan then
 * sees any read past the end, as under libFuzzer). */
static int run_file(const char *path) {
    size_t n = 0;
    uint8_t *data = slurp(path, &n);
    if (!data) return -1;
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(data);
        return -1;
    }
    memcpy(exact, data, n);
    free(data);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every regular file in `dir`, in name order (the same order on every
 * machine); returns the count, or -1. */
static long run_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: cannot open directory %s\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    long rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) { rc = -1; break; }
            names = nn;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) { rc = -1; break; }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (rc >= 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) rc = run_file(names[i]) ? -1 : rc + 1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    long total = 0;
#ifdef TG_FUZZ_REGRESS
    static char *fallback[] = {NULL, TG_FUZZ_REGRESS, NULL};
    if (argc < 2) {
        fallback[0] = argv[0];
        argv = fallback;
        argc = 2;
    }
#endif
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            return 1;
        }
        long n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : (run_file(argv[i]) ? -1 : 1);
        if (n < 0) return 1;
        total += n;
    }
    /* (an empty corpus would pass while checking nothing) */
    if (total == 0) {
        fprintf(stderr, "replay: no inputs found\n");
        return 1;
    }
    printf("replay: %ld inputs, every oracle held\n", total);
    return 0;
}
