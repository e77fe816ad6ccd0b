/* tests/test_zero_copy.c: loading from a file reads nothing it does not need (issue 14's proof).
 *
 * A 1 GiB safetensors file whose data is a hole (a sparse file: the header written, the rest ftruncate'd), so
 * no page of it is in the page cache until someone reads it. Checked: after open + get, the tensor's data
 * pointer lies inside the file's one mapping and mincore reports none of its pages resident; touching one
 * element brings in at most a read-around's worth (under 16 MiB of the 1 GiB); a second process that loads the
 * same file and reads the same 4 MiB maps the same physical pages, which /proc/self/smaps counts as shared
 * (Shared_Clean) in that process's mapping of the file, with no private copy (Private_Dirty 0).
 *
 * Linux only (mincore, /proc); skips (77) elsewhere, where the build cannot map files (TH_NO_FILE_MAP), and when
 * the temporary directory's filesystem cannot make the file sparse. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define GIB ((int64_t)1 << 30)
#define MIB ((int64_t)1 << 20)

static char dir[] = "/tmp/th_zero_copy_XXXXXX";
static char path[256];

/* A safetensors file of one f32 tensor "w" of 1 GiB whose data is a hole. Returns 0, or 77 when it cannot be made
 * sparse. */
static int make_sparse_file(void)
{
    char header[128];
    int n = snprintf(header, sizeof header, "{\"w\":{\"dtype\":\"F32\",\"shape\":[%lld],\"data_offsets\":[0,%lld]}}",
                     (long long)(GIB / 4), (long long)GIB);
    while (n % 8) header[n++] = ' ';
    FILE *f = fopen(path, "wb");
    if (!f) return 1;
    uint64_t len = (uint64_t)n;
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(len >> (8 * i));
    int ok = fwrite(le, 1, 8, f) == 8 && fwrite(header, 1, (size_t)n, f) == (size_t)n;
    ok = fclose(f) == 0 && ok;
    if (!ok || truncate(path, 8 + n + GIB) != 0) return 1;
    struct stat st;
    if (stat(path, &st) != 0) return 1;
    if ((int64_t)st.st_blocks * 512 > 16 * MIB) {
        printf("SKIP: %s is not sparse here (%lld bytes allocated)\n", path, (long long)st.st_blocks * 512);
        return 77;
    }
    return 0;
}

/* How many of the pages that lie wholly inside [p, p + n) are resident, by mincore (the first page of the data
 * also holds the file's header, which open reads). */
static int64_t resident_pages(const void *p, int64_t n)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)p + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
    size_t len = (size_t)(((uintptr_t)p + (uintptr_t)n) / (uintptr_t)page * (uintptr_t)page - start);
    size_t npages = len / (size_t)page;
    unsigned char *vec = (unsigned char *)malloc(npages);
    if (!vec) return -1;
    int64_t count = -1;
    if (mincore((void *)start, len, vec) == 0) {
        count = 0;
        for (size_t i = 0; i < npages; i++) count += vec[i] & 1;
    }
    free(vec);
    return count;
}

/* The kB of a smaps field in the mapping that contains addr. */
static long smaps_field(const void *addr, const char *field)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int inside = 0;
    long value = -1;
    size_t flen = strlen(field);
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
            continue;
        }
        if (inside && strncmp(line, field, flen) == 0 && line[flen] == ':') {
            value = atol(line + flen + 1);
            break;
        }
    }
    fclose(f);
    return value;
}

/* Reads 4 MiB from the start of the tensor's data, one element a page. */
static float touch_4mib(const float *data)
{
    float sum = 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int64_t i = 0; i < 4 * MIB / 4; i += page / 4) sum += ((volatile const float *)data)[i];
    return sum;
}

int main(void)
{
#if !defined(__linux__) || defined(TH_NO_FILE_MAP)
    printf("SKIP: mincore and /proc/self/smaps are Linux's, and this build maps no files\n");
    return 77;
#else
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/sparse.safetensors", dir);
    int made = make_sparse_file();
    if (made) {
        unlink(path);
        rmdir(dir);
        return made;
    }
    test_begin();

    th_safetensors *f = th_safetensors_open(path);
    CHECK(f != NULL);
    th_tensor *w = f ? th_safetensors_get(f, "w") : NULL;
    CHECK(w != NULL);
    if (!w) {
        th_safetensors_close(f);
        unlink(path);
        rmdir(dir);
        return test_end("zero_copy");
    }
    th_safetensors_close(f); /* the tensor keeps the mapping */
    CHECK(th_storage_is_mapped(th_tensor_storage(w)));
    const float *data = (const float *)th_tensor_data(w);
    const char *base = (const char *)th_storage_raw_data(th_tensor_storage(w));
    int64_t mapped = th_storage_nbytes(th_tensor_storage(w));
    CHECK((const char *)data >= base && (const char *)data + GIB <= base + mapped);

    int64_t before = resident_pages(data, GIB);
    CHECK_INT_EQ(before, 0);
    float one = ((volatile const float *)data)[12345];
    CHECK(one == 0.0f);
    long page = sysconf(_SC_PAGESIZE);
    int64_t after = resident_pages(data, GIB);
    CHECK(after >= 1 && after * page < 16 * MIB);
    printf("zero_copy: a 1 GiB tensor loaded: %lld pages resident; after reading one element: %lld (%lld kB)\n",
           (long long)before, (long long)after, (long long)(after * page / 1024));

    /* Two processes: the parent reads 4 MiB, then a child loads the file itself and reads the same 4 MiB; the
     * child's mapping holds them as shared clean pages, none private. */
    CHECK(touch_4mib(data) == 0.0f);
    int to_parent[2];
    CHECK(pipe(to_parent) == 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(to_parent[0]);
        long result[2] = {-1, -1};
        th_safetensors *g = th_safetensors_open(path);
        th_tensor *v = g ? th_safetensors_get(g, "w") : NULL;
        th_safetensors_close(g);
        if (v) {
            const float *d = (const float *)th_tensor_data(v);
            (void)touch_4mib(d);
            result[0] = smaps_field(d, "Shared_Clean");
            result[1] = smaps_field(d, "Private_Dirty");
            th_tensor_release(v);
        }
        th_tensor_release(w); /* the parent's, copied into this process by fork */
        ssize_t written = write(to_parent[1], result, sizeof result);
        _exit(written == (ssize_t)sizeof result ? 0 : 1);
    }
    CHECK(pid > 0);
    close(to_parent[1]);
    long result[2] = {-1, -1};
    ssize_t got = pid > 0 ? read(to_parent[0], result, sizeof result) : -1;
    close(to_parent[0]);
    int status = 1;
    if (pid > 0) waitpid(pid, &status, 0);
    CHECK(got == (ssize_t)sizeof result && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(result[0] >= 4 * 1024 - 8); /* kB: the 4 MiB both processes read, give or take the pages at its ends */
    CHECK_INT_EQ(result[1], 0);
    printf("zero_copy: a second process that loads the file and reads the same 4 MiB: %ld kB shared, %ld kB "
           "private\n", result[0], result[1]);

    th_tensor_release(w);
    unlink(path);
    rmdir(dir);
    return test_end("zero_copy");
#endif
}
