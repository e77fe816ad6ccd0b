/* tests/shm/test_shm_file_map.c: storages over mapped files.
 *
 * Shared maps write to the file (and a forked child's writes reach it too), private maps copy on write, sizes
 * come from the file unless given, files are created or grown only when asked, space is reserved up front,
 * and every misuse is a clear error that leaves no file or mapping behind. */
#include "shm_test.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

static char dir[64];

static const char *path_of(const char *name)
{
    static char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, n, f) == n);
    if (f) fclose(f);
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int file_bytes(const char *path, void *out, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t got = fread(out, 1, n, f);
    fclose(f);
    return (int)got;
}

static void test_create_shared(void)
{
    const char *p = path_of("new.bin");
    th_storage *s = th_storage_map_file(p, &(th_file_map_options){.shared = true, .create = true, .nbytes = 4096});
    CHECK(s != NULL);
    CHECK_INT_EQ(th_storage_nbytes(s), 4096);
    CHECK(!th_storage_is_resizable(s) && !th_storage_is_shared(s));
    CHECK_INT_EQ(file_size(p), 4096);
    float *d = th_f32_storage_data(s);
    CHECK(d[0] == 0.0f && d[1023] == 0.0f); /* a fresh file is zeros */
    th_f32_tensor *t = th_f32_new_with_storage(s, 0, 2, SZ(32, 32), NULL);
    th_f32_set(t, IDX(31, 31), 3.5f);
    th_f32_release(t);
    th_storage_release(s);
    float back[1024];
    CHECK_INT_EQ(file_bytes(p, back, sizeof back), 4096);
    CHECK(back[1023] == 3.5f);

    /* Attach again, size from the file; a forked child's writes reach it. */
    s = th_storage_map_file(p, &(th_file_map_options){.shared = true});
    CHECK(s != NULL && th_storage_nbytes(s) == 4096);
    CHECK(th_f32_storage_data(s)[1023] == 3.5f);
    pid_t pid = fork();
    if (pid == 0) {
        th_f32_storage_data(s)[7] = 7.0f;
        _exit(0);
    }
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    CHECK(th_f32_storage_data(s)[7] == 7.0f);
    /* A second map of the file sees the first one's writes at once. */
    th_storage *s2 = th_storage_map_file(p, &(th_file_map_options){.shared = true, .nbytes = 64});
    CHECK(s2 != NULL && th_storage_nbytes(s2) == 64 && th_f32_storage_data(s2)[7] == 7.0f);
    th_f32_storage_data(s2)[8] = 8.0f;
    CHECK(th_f32_storage_data(s)[8] == 8.0f);
    th_storage_release(s2);
    th_storage_release(s);
    CHECK_INT_EQ(file_bytes(p, back, sizeof back), 4096);
    CHECK(back[7] == 7.0f && back[8] == 8.0f);

    /* create on an existing file without exclusive attaches (and keeps its contents). */
    s = th_storage_map_file(p, &(th_file_map_options){.shared = true, .create = true, .nbytes = 4096});
    CHECK(s != NULL && th_f32_storage_data(s)[8] == 8.0f);
    th_storage_release(s);
    /* and grows it when asked for more */
    s = th_storage_map_file(p, &(th_file_map_options){.shared = true, .create = true, .nbytes = 8192});
    CHECK(s != NULL && th_f32_storage_data(s)[8] == 8.0f && th_f32_storage_data(s)[2047] == 0.0f);
    CHECK_INT_EQ(file_size(p), 8192);
    th_storage_release(s);
    CHECK_NULL(th_storage_map_file(p, &(th_file_map_options){.shared = true, .create = true, .exclusive = true,
                                                             .nbytes = 8}),
               TH_ERR_IO, "th_storage_map_file", "exists and exclusive was asked for");
    unlink(p);
}

static void test_private(void)
{
    const char *p = path_of("private.bin");
    int32_t v[100];
    for (int i = 0; i < 100; i++) v[i] = i;
    write_file(p, v, sizeof v);
    chmod(p, 0400); /* read-only is enough for a private map */
    th_storage *s = th_storage_map_file(p, NULL);
    CHECK(s != NULL && th_storage_nbytes(s) == 400);
    int32_t *d = th_i32_storage_data(s);
    CHECK(d[99] == 99);
    d[5] = -5; /* copy on write: the file keeps 5 */
    th_i32_tensor *t = th_i32_new_with_storage(s, 10, 1, SZ(5), NULL);
    CHECK_INT_EQ(th_i32_get(t, IDX(4)), 14);
    /* Moving a mapped file into shared memory copies it out and unmaps the file. */
    CHECK_INT_EQ(th_i32_share_memory(t), TH_OK);
    CHECK(th_i32_is_shared(t) && th_i32_get(t, IDX(4)) == 14 && th_i32_storage_data(s)[5] == -5);
    th_i32_release(t);
    th_storage_release(s);
    int32_t back[100];
    CHECK_INT_EQ(file_bytes(p, back, sizeof back), 400);
    CHECK(back[5] == 5);
    /* A part of it. */
    s = th_storage_map_file(p, &(th_file_map_options){.nbytes = 40});
    CHECK(s != NULL && th_storage_nbytes(s) == 40 && th_i32_storage_data(s)[9] == 9);
    th_storage_release(s);
    chmod(p, 0600);
    unlink(p);

    /* An empty file: an empty storage. */
    p = path_of("empty.bin");
    write_file(p, "", 0);
    s = th_storage_map_file(p, &(th_file_map_options){.shared = true});
    CHECK(s != NULL && th_storage_nbytes(s) == 0);
    th_storage_release(s);
    unlink(p);
}

static void test_errors(void)
{
#define fn "th_storage_map_file"
    const char *missing = path_of("missing.bin");
    CHECK_NULL(th_storage_map_file(NULL, NULL), TH_ERR_INVALID, fn, "NULL path");
    CHECK_NULL(th_storage_map_file("", NULL), TH_ERR_INVALID, fn, "empty path");
    CHECK_NULL(th_storage_map_file(missing, NULL), TH_ERR_IO, fn, "does not exist (set create to make it)");
    CHECK_NULL(th_storage_map_file(missing, &(th_file_map_options){.shared = true}), TH_ERR_IO, fn, "does not exist");
    CHECK_NULL(th_storage_map_file(missing, &(th_file_map_options){.nbytes = -1}), TH_ERR_INVALID, fn, "negative nbytes");
    CHECK_NULL(th_storage_map_file(missing, &(th_file_map_options){.shared = true, .exclusive = true, .nbytes = 8}),
               TH_ERR_INVALID, fn, "exclusive without create");
    CHECK_NULL(th_storage_map_file(missing, &(th_file_map_options){.create = true, .nbytes = 8}), TH_ERR_INVALID, fn,
               "set shared");
    CHECK_NULL(th_storage_map_file(missing, &(th_file_map_options){.shared = true, .create = true}), TH_ERR_INVALID, fn,
               "create needs nbytes > 0");
    CHECK(file_size(missing) == -1);
    CHECK_NULL(th_storage_map_file(path_of("no/such/dir.bin"),
                                   &(th_file_map_options){.shared = true, .create = true, .nbytes = 8}),
               TH_ERR_IO, fn, "a folder of the path is missing");
    CHECK_NULL(th_storage_map_file(dir, NULL), TH_ERR_INVALID, fn, "is a directory, not a regular file");
    CHECK_NULL(th_storage_map_file(dir, &(th_file_map_options){.shared = true}), TH_ERR_INVALID, fn, "is a directory");

    const char *p = path_of("small.bin");
    write_file(p, "0123456789", 10);
    CHECK_NULL(th_storage_map_file(p, &(th_file_map_options){.nbytes = 11}), TH_ERR_RANGE, fn,
               "holds 10 bytes, fewer than the 11 asked for (set create to grow it)");
    CHECK_INT_EQ(file_size(p), 10);

    /* No room to grow the file: the error at once, the file as it was, a created file removed. A child with a
     * small RLIMIT_FSIZE stands for a full disk. */
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {1000, 1000};
        setrlimit(RLIMIT_FSIZE, &rl);
        th_storage *s = th_storage_map_file(p, &(th_file_map_options){.shared = true, .create = true, .nbytes = 1 << 20});
        int ok = !s && th_last_status() == TH_ERR_NOMEM && strstr(th_last_error(), "could not grow") &&
                 file_size(p) == 10;
        s = th_storage_map_file(path_of("big.bin"), &(th_file_map_options){.shared = true, .create = true,
                                                                           .nbytes = 1 << 20});
        ok = ok && !s && file_size(path_of("big.bin")) == -1;
        _exit(ok ? 0 : 1);
    }
    CHECK_INT_EQ(shm_test_wait(pid), 0);

    /* Permission: another user may not open a 0600 file (needs root to become someone else). */
    if (geteuid() == 0) {
        chmod(p, 0600);
        pid = fork();
        if (pid == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
            th_storage *s = th_storage_map_file(p, NULL);
            _exit(!s && th_last_status() == TH_ERR_IO && strstr(th_last_error(), "no permission to open") ? 0 : 1);
        }
        CHECK_INT_EQ(shm_test_wait(pid), 0);
    } else {
        printf("file map permission test: SKIPPED (needs root to switch to another user)\n");
    }
    unlink(p);
#undef fn
}

/* A FIFO, a device, a socket: refused by their type before they are opened, so none can block the caller (a
 * FIFO's open waits for a writer) or have an open's side effects; in a child with an alarm, so that a hang
 * fails the test instead of stalling it. */
static void test_special_files(void)
{
#define fn "th_storage_map_file"
    const char *fifo = path_of("fifo");
    CHECK_INT_EQ(mkfifo(fifo, 0600), 0);
    const th_file_map_options shared = {.shared = true}, create = {.shared = true, .create = true, .nbytes = 64};
    pid_t pid = fork();
    if (pid == 0) {
        alarm(10);
        int ok = 1;
        const th_file_map_options *opts[] = {NULL, &shared, &create};
        for (int i = 0; i < 3; i++) {
            th_storage *s = th_storage_map_file(fifo, opts[i]);
            int good = !s && th_last_status() == TH_ERR_INVALID && strstr(th_last_error(), "th_storage_map_file: ") &&
                       strstr(th_last_error(), "is a FIFO (named pipe), not a regular file");
            if (!good) fprintf(stderr, "fifo, options %d: %s\n", i, th_last_error());
            ok &= good;
            th_storage_release(s);
        }
        _exit(ok ? 0 : 1);
    }
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    unlink(fifo);
    CHECK_NULL(th_storage_map_file("/dev/null", NULL), TH_ERR_INVALID, fn, "'/dev/null' is a character device");
    CHECK_NULL(th_storage_map_file("/dev/zero", &shared), TH_ERR_INVALID, fn, "is a character device");
#undef fn
}

int main(void)
{
    shm_test_begin("map");
    snprintf(dir, sizeof dir, "/tmp/th_shm_map_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    chmod(dir, 0755);
    int fds = shm_test_open_fds();
    test_create_shared();
    test_private();
    test_errors();
    test_special_files();
    CHECK_INT_EQ(shm_test_open_fds(), fds);
    CHECK_INT_EQ(rmdir(dir), 0); /* empty: every file the tests made is gone */
    return shm_test_end("test_shm_file_map");
}
