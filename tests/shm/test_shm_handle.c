/* tests/shm/test_shm_handle.c: the name strategy and its printable handles.
 *
 * Round trips in this process and in fork+exec'd helpers, for every dtype and for views with offsets,
 * transposed, stepped, expanded (stride 0), 0-d and empty; the last process to let go unlinks the segment;
 * the strict parser (every malformed field refused with a message saying which) and the formatter's round
 * trip; and opening bad handles: a segment gone, smaller than claimed, not ours, another user's, a dtype or
 * shape that does not fit; each leaving no mapping or descriptor behind. */
#include "shm_test.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* A shared f32 storage of n elements, element k holding k (the helper checks views against this). */
static th_f32_tensor *positions(int64_t n)
{
    th_f32_tensor *t = shm_test_arange(1, SZ(n));
    CHECK_INT_EQ(th_storage_share_memory_with(th_f32_storage(t), TH_SHM_NAME), TH_OK);
    return t;
}

static void test_same_process(void)
{
    th_f32_tensor *a = shm_test_arange(2, SZ(2, 3));
    char h[TH_SHM_HANDLE_MAX];
    int n = th_shm_handle_encode(th_f32_base(a), h, sizeof h);
    CHECK(n > 0 && (size_t)n == strlen(h));
    CHECK(th_f32_is_shared(a)); /* encode shared it (name strategy) */
    CHECK_INT_EQ(th_storage_shm_strategy(th_f32_storage(a)), TH_SHM_NAME);
    CHECK(strncmp(h, "thshm/1:name=/", 14) == 0);
    CHECK(strstr(h, ":bytes=24:dtype=f32:offset=0:sizes=2,3:strides=3,1") != NULL);
    th_f32_tensor *b = th_f32_from_base(th_shm_open_handle(h));
    CHECK(b != NULL);
    CHECK(th_f32_is_shared(b));
    CHECK(th_f32_data(b) != th_f32_data(a)); /* a second mapping of the same segment */
    th_f32_set(b, IDX(1, 2), 42.0f);
    CHECK(th_f32_get(a, IDX(1, 2)) == 42.0f);
    CHECK(th_f32_get(b, IDX(1, 1)) == 4.0f);
    CHECK_INT_EQ(shm_test_mappings(), 2);
    th_f32_release(a);
    CHECK_INT_EQ(shm_test_segments(), 1); /* b still holds it */
    char h2[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(b), h2, sizeof h2) > 0);
    CHECK(strcmp(h, h2) == 0);
    th_f32_release(b);
    CHECK_INT_EQ(shm_test_segments(), 0);
    CHECK_NULL(th_shm_open_handle(h), TH_ERR_IO, "th_shm_open_handle", "no longer exists");
}

/* Every dtype's bytes and dtype survive. */
#define X(sfx, ENUM, elem, ...)                                                                  \
    TH__IF_##sfx(static void roundtrip_##sfx(void) {                                            \
        th_##sfx##_tensor *t = th_##sfx##_zeros(2, SZ(3, 4));                                    \
        unsigned char *p = (unsigned char *)th_##sfx##_data(t), want[12 * sizeof(elem)];          \
        for (size_t i = 0; i < sizeof want; i++) p[i] = want[i] = (unsigned char)(i * 13 + 5);     \
        th_##sfx##_tensor *v = th_##sfx##_transpose(t, 0, 1);                                    \
        char h[TH_SHM_HANDLE_MAX];                                                               \
        CHECK(th_shm_handle_encode(th_##sfx##_base(v), h, sizeof h) > 0);                        \
        th_tensor *o = th_shm_open_handle(h);                                                    \
        CHECK(o != NULL && th_tensor_dtype(o) == TH_##ENUM);                                     \
        CHECK(th_tensor_ndim(o) == 2 && th_tensor_sizes(o)[0] == 4 && th_tensor_strides(o)[0] == 1); \
        CHECK(memcmp(th_tensor_data(o), want, sizeof want) == 0);                                \
        th_tensor_release(o);                                                                    \
        th_##sfx##_release(v);                                                                   \
        th_##sfx##_release(t);                                                                   \
    })
TH_FOREACH_DTYPE(X)
#undef X

static void test_every_dtype(void)
{
#define X(sfx, ...) TH__IF_##sfx(roundtrip_##sfx();)
    TH_FOREACH_DTYPE(X)
#undef X
}

/* A view of the positions storage goes to a fork+exec'd helper, which checks every element against its
 * storage position and negates it; the parent sees the negated values. */
static void through_helper(th_f32_tensor *base, th_f32_tensor *view)
{
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(view), h, sizeof h) > 0);
    pid_t pid = shm_test_spawn((const char *[]){"open", h, NULL});
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    /* Every element of the view is now -(position) - 1. */
    CHECK(shm_test_negated(base, view));
}

static void test_views_across_exec(void)
{
    th_f32_tensor *s = positions(120);
    th_f32_tensor *m = th_f32_view(s, 3, SZ(4, 5, 6));
    th_f32_tensor *v;

    through_helper(s, m);
    v = th_f32_transpose(m, 0, 2); /* strides 1, 6, 30 */
    through_helper(s, v);
    th_f32_release(v);
    v = th_f32_narrow(m, 1, 2, 3); /* offset 12 */
    th_f32_tensor *w = th_f32_narrow(v, 2, 1, 4); /* offset 13, non-contiguous */
    through_helper(s, w);
    th_f32_release(w);
    th_f32_release(v);
    th_f32_tensor *x = th_f32_select(m, 0, 3);
    v = th_f32_unfold(x, 1, 2, 2); /* offset 90, windows */
    th_f32_release(x);
    through_helper(s, v);
    th_f32_release(v);
    x = th_f32_select(m, 0, 2);
    w = th_f32_select(x, 0, 1);
    v = th_f32_select(w, 0, 5); /* 0-d at 71 */
    th_f32_release(w);
    th_f32_release(x);
    CHECK_INT_EQ(th_f32_ndim(v), 0);
    through_helper(s, v);
    th_f32_release(v);
    th_f32_tensor *row = th_f32_narrow(s, 0, 7, 1);
    v = th_f32_expand(row, 2, SZ(3, 1)); /* stride 0 */
    CHECK_INT_EQ(th_f32_stride(v, 0), 0);
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(v), h, sizeof h) > 0);
    CHECK(strstr(h, ":offset=7:sizes=3,1:strides=0,1") != NULL);
    th_tensor *o = th_shm_open_handle(h);
    CHECK(o != NULL && th_tensor_strides(o)[0] == 0 && *(float *)th_tensor_data(o) == 7.0f);
    th_tensor_release(o);
    th_f32_release(v);
    th_f32_release(row);
    v = th_f32_narrow(m, 2, 3, 0); /* no elements */
    CHECK(th_shm_handle_encode(th_f32_base(v), h, sizeof h) > 0);
    o = th_shm_open_handle(h);
    CHECK(o != NULL && th_tensor_numel(o) == 0 && th_tensor_offset(o) == th_f32_offset(v));
    CHECK(o != NULL && th_tensor_sizes(o)[2] == 0 && th_tensor_sizes(o)[1] == 5);
    th_tensor_release(o);
    th_f32_release(v);
    th_f32_release(m);
    th_f32_release(s);
}

/* An empty storage travels as an "empty" handle. */
static void test_empty(void)
{
    th_i16_tensor *e = th_i16_empty(2, SZ(0, 4));
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_i16_base(e), h, sizeof h) > 0);
    CHECK(strcmp(h, "thshm/1:empty:bytes=0:dtype=i16:offset=0:sizes=0,4:strides=4,1") == 0);
    th_tensor *o = th_shm_open_handle(h);
    CHECK(o != NULL && th_tensor_numel(o) == 0 && th_tensor_dtype(o) == TH_I16 && th_tensor_is_shared(o));
    th_tensor_release(o);
    th_i16_release(e);
}

/* The last process to let go unlinks: a child opens the handle, the parent lets go first. */
static void test_last_unlinks(void)
{
    th_f32_tensor *a = positions(64);
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0);
    int up[2], down[2];
    CHECK(pipe(up) == 0 && pipe(down) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        th_f32_release(a); /* inherited: only unmapped */
        th_tensor *t = th_shm_open_handle(h);
        char byte = t ? 'y' : 'n';
        (void)!write(up[1], &byte, 1);
        (void)!read(down[0], &byte, 1);
        int bad = !t || ((float *)th_tensor_data(t))[63] != 63.0f;
        th_tensor_release(t);
        _exit(bad);
    }
    char byte = 0;
    CHECK(read(up[0], &byte, 1) == 1 && byte == 'y');
    th_f32_release(a);
    CHECK_INT_EQ(shm_test_segments(), 1);
    (void)!write(down[1], "x", 1);
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    CHECK_INT_EQ(shm_test_segments(), 0);
    close(up[0]), close(up[1]), close(down[0]), close(down[1]);
}

/* ---- the parser ---- */

static void test_parse_good(void)
{
    static const char *good[] = {
        "thshm/1:name=/th_1_ab:bytes=24:dtype=f32:offset=0:sizes=2,3:strides=3,1",
        "thshm/1:name=/x.y-Z_9:bytes=1:dtype=u8:offset=0:sizes=:strides=",
        "thshm/1:fd:bytes=8:dtype=f64:offset=0:sizes=1:strides=-5",
        "thshm/1:fd:bytes=80:dtype=c64:offset=9:sizes=10:strides=-1",
        "thshm/1:empty:bytes=0:dtype=bool:offset=0:sizes=0:strides=1",
        "thshm/1:empty:bytes=0:dtype=bf16:offset=0:sizes=0,9223372036854775807:strides=0,0",
        "thshm/1:fd:bytes=4:dtype=i32:offset=0:sizes=5,7:strides=0,0",
        "thshm/1:fd:bytes=9223372036854775807:dtype=i8:offset=9223372036854775806:sizes=1:strides=-9223372036854775807",
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        th_shm_handle h;
        th_clear_error();
        int rc = th_shm_handle_parse(good[i], strlen(good[i]), &h);
        if (rc) fprintf(stderr, "good[%zu]: %s\n", i, th_last_error());
        CHECK_INT_EQ(rc, TH_OK);
        char back[TH_SHM_HANDLE_MAX];
        CHECK_INT_EQ(th_shm_handle_format(&h, back, sizeof back), (int)strlen(good[i]));
        CHECK(strcmp(back, good[i]) == 0);
    }
    th_shm_handle h;
    CHECK_INT_EQ(th_shm_handle_parse(good[0], strlen(good[0]), &h), TH_OK);
    CHECK(h.version == 1 && h.locator == TH_SHM_LOCATOR_NAME && strcmp(h.name, "/th_1_ab") == 0);
    CHECK(h.nbytes == 24 && h.dtype == TH_F32 && h.offset == 0 && h.ndim == 2);
    CHECK(h.sizes[1] == 3 && h.strides[0] == 3);
    char small[10];
    CHECK_FAILS(th_shm_handle_format(&h, small, sizeof small), TH_ERR_RANGE, "th_shm_handle_format", "buffer holds 10");
    h.ndim = -1;
    CHECK_FAILS(th_shm_handle_format(&h, small, sizeof small), TH_ERR_RANGE, "th_shm_handle_format", "ndim -1");

    /* The longest handle fits TH_SHM_HANDLE_MAX. */
    th_shm_handle big;
    memset(&big, 0, sizeof big);
    big.version = 1;
    big.locator = TH_SHM_LOCATOR_NAME;
    memset(big.name, 'a', TH_SHM_NAME_MAX - 1);
    big.name[0] = '/';
    big.name[TH_SHM_NAME_MAX - 1] = '\0';
    big.nbytes = INT64_MAX;
    big.dtype = TH_BOOL;
    big.offset = INT64_MAX - 1;
    big.ndim = TH_MAX_DIMS;
    for (int d = 0; d < TH_MAX_DIMS; d++) big.sizes[d] = 1, big.strides[d] = -INT64_MAX;
    big.sizes[0] = 0; /* no elements: any strides (sizes stay short: their product must fit int64) */
    big.offset = 1000000000000000000;
    char text[TH_SHM_HANDLE_MAX];
    int n = th_shm_handle_format(&big, text, sizeof text);
    if (n < 0) fprintf(stderr, "%s\n", th_last_error());
    CHECK(n > 0 && n < TH_SHM_HANDLE_MAX);
    CHECK_INT_EQ(th_shm_handle_parse(text, (size_t)n, &h), TH_OK);
}

typedef struct bad_case {
    const char *text;
    th_status status;
    const char *detail;
} bad_case;

static void test_parse_bad(void)
{
    static const bad_case bad[] = {
        {"", TH_ERR_INVALID, "bad start"},
        {"thshm", TH_ERR_INVALID, "bad start"},
        {"THSHM/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "no tensor.h handle"},
        {"thshm/2:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "version 2 is not supported"},
        {"thshm/01:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad version"},
        {"thshm/1;fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad separator"},
        {"thshm/1:cuda=0:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad locator"},
        {"thshm/1:name=th_1:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        {"thshm/1:name=/:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        {"thshm/1:name=/a/b:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        {"thshm/1:name=/a b:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        {"thshm/1:name=/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:bytes=8:dtype=f32:offset=0:"
         "sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        {"thshm/1:name=/a:bytes=0:dtype=f32:offset=0:sizes=0:strides=1", TH_ERR_INVALID, "at least 1 byte"},
        {"thshm/1:fd:bytes=0:dtype=f32:offset=0:sizes=0:strides=1", TH_ERR_INVALID, "at least 1 byte"},
        {"thshm/1:empty:bytes=4:dtype=f32:offset=0:sizes=1:strides=1", TH_ERR_INVALID, "0 bytes, not 4"},
        {"thshm/1:fd:bytes=08:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad bytes"},
        {"thshm/1:fd:bytes=+8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad bytes"},
        {"thshm/1:fd:bytes=-8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad bytes"},
        {"thshm/1:fd:bytes=9223372036854775808:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad bytes"},
        {"thshm/1:fd:bytes= 8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad bytes"},
        {"thshm/1:fd:bytes=8:dtype=f31:offset=0:sizes=2:strides=1", TH_ERR_DTYPE, "unknown dtype \"f31\""},
        {"thshm/1:fd:bytes=8:dtype=:offset=0:sizes=2:strides=1", TH_ERR_DTYPE, "unknown dtype"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=-1:sizes=2:strides=1", TH_ERR_INVALID, "bad offset"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=-2:strides=1", TH_ERR_INVALID, "bad sizes="},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2,:strides=1", TH_ERR_INVALID, "bad sizes="},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=,2:strides=1", TH_ERR_INVALID, "bad sizes="},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=-0", TH_ERR_INVALID, "bad strides="},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=--1", TH_ERR_INVALID, "bad strides="},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1,1", TH_ERR_INVALID, "1 sizes but 2 strides"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=", TH_ERR_INVALID, "1 sizes but 0 strides"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1:", TH_ERR_INVALID, "bad end"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1\n", TH_ERR_INVALID, "bad end"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:strides=1:sizes=2", TH_ERR_INVALID, "bad field"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1:strides=", TH_ERR_RANGE,
         "more than 16"},
        /* fits the grammar, not the storage */
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=3:strides=1", TH_ERR_RANGE, "outside the storage's 2 elements"},
        {"thshm/1:fd:bytes=24:dtype=f64:offset=0:sizes=4:strides=1", TH_ERR_RANGE, "outside the storage's 3 elements"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=1:sizes=2:strides=1", TH_ERR_RANGE, "addresses elements 1..2"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=-1", TH_ERR_RANGE, "addresses elements -1..0"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=3:sizes=0:strides=1", TH_ERR_RANGE, "past the 2 elements"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=3037000500,3037000500:strides=1,1", TH_ERR_OVERFLOW,
         "element count overflows"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2,2:strides=9223372036854775807,1", TH_ERR_OVERFLOW,
         "more than int64"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        th_shm_handle h;
        th_clear_error();
        int rc = th_shm_handle_parse(bad[i].text, strlen(bad[i].text), &h);
        int ok = rc == (int)bad[i].status && strstr(th_last_error(), bad[i].detail) &&
                 strncmp(th_last_error(), "th_shm_handle_parse: ", 21) == 0;
        if (!ok) fprintf(stderr, "bad[%zu] \"%s\": %d %s\n", i, bad[i].text, rc, th_last_error());
        CHECK(ok);
        /* open_handle says the same, under its own name, and leaves nothing */
        CHECK_NULL(th_shm_open_handle(bad[i].text), bad[i].status, "th_shm_open_handle", bad[i].detail);
    }
    /* An embedded NUL, and a text as long as the limit. */
    th_shm_handle h;
    CHECK_FAILS(th_shm_handle_parse("thshm/1\0:fd", 11, &h), TH_ERR_INVALID, "th_shm_handle_parse", "bad separator");
    char longtext[TH_SHM_HANDLE_MAX + 10];
    memset(longtext, 'x', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = '\0';
    CHECK_FAILS(th_shm_handle_parse(longtext, strlen(longtext), &h), TH_ERR_INVALID, "th_shm_handle_parse",
                "longer than any handle");
    CHECK_NULL(th_shm_open_handle(longtext), TH_ERR_INVALID, "th_shm_open_handle", "longer than any handle");
    CHECK_FAILS(th_shm_handle_parse(NULL, 0, &h), TH_ERR_INVALID, "th_shm_handle_parse", "NULL");
    CHECK_NULL(th_shm_open_handle(NULL), TH_ERR_INVALID, "th_shm_open_handle", "NULL");
    CHECK_NULL(th_shm_open_handle("thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1"), TH_ERR_INVALID,
               "th_shm_open_handle", "th_shm_recv_fd");
}

/* ---- opening bad segments ---- */

/* Replaces the ":bytes=N:" of a handle with bytes. */
static void set_bytes(char *h, long long bytes)
{
    char *p = strstr(h, ":bytes="), *q = strchr(p + 1, ':');
    char rest[TH_SHM_HANDLE_MAX];
    strcpy(rest, q);
    sprintf(p, ":bytes=%lld%s", bytes, rest);
}

static void test_open_bad(void)
{
    int fds = shm_test_open_fds();
    th_f32_tensor *a = positions(16);
    char h[TH_SHM_HANDLE_MAX], tmp[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0);

    /* Larger or smaller than the segment. */
    strcpy(tmp, h);
    set_bytes(tmp, 128);
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_SHAPE, "th_shm_open_handle", "holds 64 bytes of data, but the handle says 128");
    strcpy(tmp, h);
    set_bytes(tmp, 1 << 20);
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_SHAPE, "th_shm_open_handle", "but the handle says 1048576");
    /* A dtype that does not fit the segment's bytes: f64 x 16 needs 128. */
    strcpy(tmp, h);
    char *d = strstr(tmp, "dtype=f32");
    memcpy(d, "dtype=f64", 9);
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_RANGE, "th_shm_open_handle", "outside the storage's 8 elements of f64");
    /* Same dtype size, fine: i32 over the f32 bytes. */
    memcpy(d, "dtype=i32", 9);
    th_tensor *o = th_shm_open_handle(tmp);
    CHECK(o != NULL && th_tensor_dtype(o) == TH_I32);
    th_tensor_release(o);
    /* A name that does not exist. */
    strcpy(tmp, h);
    char *name = strstr(tmp, "name=/") + 6;
    name[0] = name[0] == 'z' ? 'y' : 'z';
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_IO, "th_shm_open_handle", "no longer exists");
    CHECK_INT_EQ(shm_test_mappings(), 1);
    th_f32_release(a);

    /* A segment that is not ours: right size, no header. */
    char fake[64];
    snprintf(fake, sizeof fake, "/%s_fake", shm_test_prefix);
    int fd = shm_open(fake, O_RDWR | O_CREAT | O_EXCL, 0600);
    CHECK(fd >= 0 && ftruncate(fd, 128 + 64) == 0);
    close(fd);
    snprintf(tmp, sizeof tmp, "thshm/1:name=%s:bytes=64:dtype=f32:offset=0:sizes=16:strides=1", fake);
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_IO, "th_shm_open_handle", "is not a tensor.h segment");
    fd = shm_open(fake, O_RDWR, 0);
    CHECK(fd >= 0 && ftruncate(fd, 100) == 0);
    close(fd);
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_SHAPE, "th_shm_open_handle", "less than a segment header");
    shm_unlink(fake);

    CHECK_INT_EQ(shm_test_mappings(), 0);
    CHECK_INT_EQ(shm_test_open_fds(), fds);
}

/* Another user's segment (mode 0600): EACCES. Needs root, to become someone else in a child. */
static void test_other_user(void)
{
    if (geteuid() != 0) {
        printf("test_other_user: SKIPPED (needs root to switch to another user)\n");
        return;
    }
    th_f32_tensor *a = positions(8);
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0);
    int out[2];
    CHECK(pipe(out) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        th_f32_release(a);
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
        /* The other user must be able to start the manager; from a private (0700) checkout it cannot, and
         * the open would fail for that reason instead. */
        const char *manager = getenv("TH_SHM_MANAGER");
        if (manager && access(manager, X_OK) != 0) _exit(4);
        th_tensor *t = th_shm_open_handle(h);
        (void)!write(out[1], th_last_error(), strlen(th_last_error()));
        _exit(t == NULL && th_last_status() == TH_ERR_IO ? 0 : 1);
    }
    close(out[1]);
    char msg[512] = "";
    ssize_t n = read(out[0], msg, sizeof msg - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(out[0]);
    int status = shm_test_wait(pid);
    if (status == 4) {
        printf("test_other_user: SKIPPED (user 65534 cannot run TH_SHM_MANAGER: a private checkout)\n");
        th_f32_release(a);
        return;
    }
    CHECK_INT_EQ(status, 0);
    CHECK(strstr(msg, "th_shm_open_handle: shared segment /") == msg);
    CHECK(strstr(msg, "belongs to another user (mode 0600): permission denied") != NULL);
    /* and the segment is 0600 */
    struct stat st;
    char path[128];
    snprintf(path, sizeof path, "/dev/shm%s", strstr(h, "name=") + 5);
    *strchr(path, ':') = '\0';
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    th_f32_release(a);
}

static void test_encode_errors(void)
{
    char h[TH_SHM_HANDLE_MAX];
    th_f32_tensor *a = th_f32_ones(1, SZ(4));
    CHECK_INT_EQ(th_storage_share_memory_with(th_f32_storage(a), TH_SHM_FD), TH_OK);
    CHECK_FAILS(th_shm_handle_encode(th_f32_base(a), h, sizeof h), TH_ERR_UNSUPPORTED, "th_shm_handle_encode",
                "has no name (it was shared with the fd strategy");
    th_f32_release(a);
    a = th_f32_ones(1, SZ(4));
    CHECK_FAILS(th_shm_handle_encode(th_f32_base(a), h, 20), TH_ERR_RANGE, "th_shm_handle_encode", "buffer holds 20");
    CHECK(th_f32_is_shared(a)); /* shared all the same */
    CHECK_FAILS(th_shm_handle_encode(NULL, h, sizeof h), TH_ERR_INVALID, "th_shm_handle_encode", "NULL tensor");
    CHECK_FAILS(th_shm_handle_encode(th_f32_base(a), NULL, 0), TH_ERR_INVALID, "th_shm_handle_encode", "NULL buffer");
    th_storage_make_read_only(th_f32_storage(a));
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0); /* already shared: nothing to move */
    th_f32_release(a);
    a = th_f32_ones(1, SZ(4));
    th_storage_make_read_only(th_f32_storage(a));
    CHECK_FAILS(th_shm_handle_encode(th_f32_base(a), h, sizeof h), TH_ERR_READ_ONLY, "th_shm_handle_encode", "read-only");
    th_f32_release(a);
}

int main(void)
{
    shm_test_begin("hdl");
    test_same_process();
    test_every_dtype();
    test_views_across_exec();
    test_empty();
    test_last_unlinks();
    test_parse_good();
    test_parse_bad();
    test_open_bad();
    test_other_user();
    test_encode_errors();
    return shm_test_end("test_shm_handle");
}
