/* tests/shm/test_shm_subset.c: th_shm linked with an implementation TU that stamps only f32 and i64.
 *
 * The program is its own TH_IMPLEMENTATION translation unit (TH_SELECT_DTYPES: f32 and i64), linked with the
 * th_shm library and not with the tests' all-dtype one: that it links at all is the first check (the
 * library needs no per-dtype function of a dtype the program did not stamp). Then the stamped dtypes share
 * and travel by both strategies, and a handle of a dtype this program did not stamp is refused clearly. */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_I64
#define TH_IMPLEMENTATION
#include "shm_test.h"

#if defined(TH_HAS_I8) || defined(TH_HAS_F64)
#error "this test stamps f32 and i64 only"
#endif

static void test_share_and_open(void)
{
    th_f32_tensor *f = shm_test_arange(2, SZ(3, 4));
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(f), h, sizeof h) > 0);
    th_f32_tensor *t = th_f32_transpose(f, 0, 1);
    char ht[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(t), ht, sizeof ht) > 0);
    th_f32_release(t);
    pid_t pid = fork();
    if (pid == 0) { /* a process of its own maps the segment afresh */
        th_f32_tensor *o = th_f32_from_base(th_shm_open_handle(ht));
        int ok = o && th_f32_get(o, IDX(3, 2)) == 11.0f && th_f32_stride(o, 0) == 1;
        th_f32_set(o, IDX(0, 1), -1.0f);
        th_f32_release(o);
        th_f32_release(f);
        _exit(ok ? 0 : 1);
    }
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    CHECK(th_f32_get(f, IDX(1, 0)) == -1.0f);

    /* a dtype the program did not stamp: the same bytes, refused by name, nothing left behind */
    char *d = strstr(h, "dtype=f32");
    memcpy(d, "dtype=i32", 9);
    CHECK_NULL(th_shm_open_handle(h), TH_ERR_DTYPE, "th_shm_open_handle", "dtype i32 is not compiled into this build");
    CHECK_INT_EQ(shm_test_mappings(), 1);
    th_f32_release(f);

    th_i64_tensor *i = th_i64_full(1, SZ(5), 7);
    CHECK_INT_EQ(th_i64_share_memory(i), TH_OK); /* the default strategy, fd */
    CHECK(th_i64_is_shared(i) && th_storage_shm_strategy(th_i64_storage(i)) == TH_SHM_FD);
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    CHECK_INT_EQ(th_shm_send_fd(sv[0], th_i64_base(i)), TH_OK);
    th_i64_tensor *r = th_i64_from_base(th_shm_recv_fd(sv[1]));
    CHECK(r != NULL && th_i64_get(r, IDX(4)) == 7);
    th_i64_release(r);
    th_i64_release(i);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    shm_test_begin("sub");
    test_share_and_open();
    return shm_test_end("test_shm_subset");
}
