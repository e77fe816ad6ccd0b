/* The fake backend itself: the tests of the CUDA policy code are only as good as what it catches. Canaries
 * find writes just outside an allocation, the capacity makes malloc fail with oom_code, events complete
 * when the test says so, IPC handles map within the process, injected failures fail, misuse is counted. */
#include "cuda_test.h"

static void test_memory(void)
{
    fake_backend_config cfg = {2, 4 * MiB, MiB, true};
    fake_backend *f = fake_backend_new(&cfg);
    const th_cuda_backend *be = fake_backend_table(f);
    int n = 0;
    CHECK_INT_EQ(be->device_count(be->ctx, &n), 0);
    CHECK_INT_EQ(n, 2);
    void *a = NULL, *b = NULL, *c = NULL, *h = NULL;
    CHECK_INT_EQ(be->malloc(be->ctx, 0, 3 * MiB, &a), 0);
    CHECK_INT_EQ((uintptr_t)a % 512, 0);
    CHECK_INT_EQ(be->malloc(be->ctx, 0, 2 * MiB, &b), be->oom_code); /* 5 MiB > 4 */
    CHECK_INT_EQ(be->malloc(be->ctx, 1, 2 * MiB, &b), 0);             /* device 1 has its own */
    CHECK_INT_EQ(be->malloc(be->ctx, 0, MiB, &c), 0);                 /* exactly full */
    size_t free_b = 0, total = 0;
    CHECK_INT_EQ(be->mem_get_info(be->ctx, 0, &free_b, &total), 0);
    CHECK_INT_EQ(total, 4 * MiB);
    CHECK_INT_EQ(free_b, 0);
    CHECK_INT_EQ(be->mem_get_info(be->ctx, 5, &free_b, &total), FAKE_ERR_INVALID_DEVICE);
    CHECK_INT_EQ(fake_backend_live_bytes(f, 0), 4 * MiB);
    CHECK_INT_EQ(fake_backend_live_allocs(f, 1), 1);
    CHECK(fake_backend_is_live(f, 0, (char *)a + MiB, 2 * MiB));
    CHECK(!fake_backend_is_live(f, 0, (char *)a + MiB, 2 * MiB + 1));
    CHECK(!fake_backend_is_live(f, 1, a, 1));
    CHECK_INT_EQ(fake_backend_alloc_id(f, a), 1);
    CHECK_INT_EQ(fake_backend_alloc_id(f, (char *)a + 1), 0);
    CHECK_INT_EQ(be->host_malloc(be->ctx, 2 * MiB, &h), be->oom_code); /* host capacity 1 MiB */
    CHECK_INT_EQ(be->host_malloc(be->ctx, 1000, &h), 0);
    CHECK_INT_EQ(fake_backend_live_bytes(f, -1), 1000);
    /* Writing inside is fine; one byte past the end or before the start is caught at the free. */
    memset(a, 0x5a, 3 * MiB);
    CHECK_INT_EQ(fake_backend_check(f), 0);
    ((unsigned char *)c)[MiB] ^= 1;
    CHECK_INT_EQ(fake_backend_check(f), 1);
    ((unsigned char *)c)[MiB] ^= 1;
    ((unsigned char *)h)[-1] ^= 1;
    CHECK_INT_EQ(be->host_free(be->ctx, h), 0);
    CHECK_INT_EQ(fake_backend_problems(f), 2);
    /* Frees: wrong device, unknown pointer, twice. */
    CHECK_INT_EQ(be->free(be->ctx, 1, a), FAKE_ERR_INVALID_VALUE);
    CHECK_INT_EQ(be->free(be->ctx, 0, a), 0);
    CHECK_INT_EQ(be->free(be->ctx, 0, a), FAKE_ERR_INVALID_VALUE);
    CHECK_INT_EQ(be->free(be->ctx, 0, (char *)c + 512), FAKE_ERR_INVALID_VALUE);
    CHECK_INT_EQ(fake_backend_problems(f), 5);
    /* Injected failures: n calls, then normal again. */
    fake_backend_fail_next(f, FAKE_CALL_MALLOC, FAKE_ERR_LAUNCH_FAILURE, 2);
    void *d = NULL;
    CHECK_INT_EQ(be->malloc(be->ctx, 0, 512, &d), FAKE_ERR_LAUNCH_FAILURE);
    CHECK_INT_EQ(be->malloc(be->ctx, 0, 512, &d), FAKE_ERR_LAUNCH_FAILURE);
    CHECK_INT_EQ(be->malloc(be->ctx, 0, 512, &d), 0);
    CHECK_INT_EQ(strcmp(be->error_name(be->ctx, FAKE_ERR_LAUNCH_FAILURE), "cudaErrorLaunchFailure"), 0);
    CHECK_INT_EQ(strcmp(be->error_name(be->ctx, be->oom_code), "cudaErrorMemoryAllocation"), 0);
    fake_counters fc = fake_backend_counters(f);
    CHECK_INT_EQ(fc.mallocs, 7);
    CHECK_INT_EQ(fc.malloc_fails, 3);
    CHECK_INT_EQ(fc.host_mallocs, 2);
    CHECK_INT_EQ(fc.host_malloc_fails, 1);
    CHECK_INT_EQ(be->free(be->ctx, 0, c), 0);
    /* b and d are left: two leaks at teardown, on top of the five problems. */
    CHECK_INT_EQ(fake_backend_delete(f), 7);
}

static void test_events(void)
{
    fake_backend_config cfg = {2, 0, 0, true};
    fake_backend *f = fake_backend_new(&cfg);
    const th_cuda_backend *be = fake_backend_table(f);
    void *s = fake_stream_new(f, 0), *s1 = fake_stream_new(f, 1);
    CHECK(fake_stream_new(f, 2) == NULL);
    void *e1 = NULL, *e2 = NULL, *e3 = NULL;
    CHECK_INT_EQ(be->event_create(be->ctx, 0, &e1), 0);
    CHECK_INT_EQ(be->event_create(be->ctx, 0, &e2), 0);
    CHECK_INT_EQ(be->event_create(be->ctx, 0, &e3), 0);
    bool done = false;
    CHECK_INT_EQ(be->event_query(be->ctx, e1, &done), 0);
    CHECK(done); /* never recorded */
    CHECK_INT_EQ(be->event_record(be->ctx, e1, s), 0);
    CHECK_INT_EQ(be->event_record(be->ctx, e2, s), 0);
    CHECK_INT_EQ(be->event_record(be->ctx, e3, NULL), 0); /* device 0's default stream */
    CHECK_INT_EQ(fake_stream_recorded(f, 0, s), 2);
    CHECK_INT_EQ(fake_stream_recorded(f, 0, NULL), 1);
    CHECK_INT_EQ(be->event_query(be->ctx, e1, &done), 0);
    CHECK(!done);
    fake_stream_complete_to(f, 0, s, 1);
    CHECK_INT_EQ(be->event_query(be->ctx, e1, &done), 0);
    CHECK(done);
    CHECK_INT_EQ(be->event_query(be->ctx, e2, &done), 0);
    CHECK(!done);
    CHECK_INT_EQ(be->event_synchronize(be->ctx, e2), 0); /* the host waits: done */
    CHECK_INT_EQ(be->event_query(be->ctx, e2, &done), 0);
    CHECK(done);
    CHECK_INT_EQ(fake_stream_completed(f, 0, s), 2);
    CHECK_INT_EQ(be->event_query(be->ctx, e3, &done), 0);
    CHECK(!done);
    CHECK_INT_EQ(be->device_synchronize(be->ctx, 0), 0);
    CHECK_INT_EQ(be->event_query(be->ctx, e3, &done), 0);
    CHECK(done);
    /* Another device's stream: refused, and a problem. */
    CHECK_INT_EQ(be->event_record(be->ctx, e1, s1), FAKE_ERR_INVALID_RESOURCE_HANDLE);
    CHECK_INT_EQ(fake_backend_problems(f), 1);
    /* Recording again moves the event to the new work. */
    CHECK_INT_EQ(be->event_record(be->ctx, e1, s), 0);
    CHECK_INT_EQ(be->event_query(be->ctx, e1, &done), 0);
    CHECK(!done);
    fake_device_complete(f, 0);
    CHECK_INT_EQ(be->event_query(be->ctx, e1, &done), 0);
    CHECK(done);
    CHECK_INT_EQ(fake_backend_counters(f).device_syncs, 1);
    CHECK_INT_EQ(fake_backend_live_events(f), 3);
    CHECK_INT_EQ(be->event_destroy(be->ctx, e1), 0);
    CHECK_INT_EQ(be->event_destroy(be->ctx, e2), 0);
    fake_backend_fail_next(f, FAKE_CALL_EVENT_QUERY, FAKE_ERR_LAUNCH_FAILURE, 1);
    CHECK_INT_EQ(be->event_query(be->ctx, e3, &done), FAKE_ERR_LAUNCH_FAILURE);
    /* e3 is left: a leak at teardown. */
    CHECK_INT_EQ(fake_backend_delete(f), 2);
}

static void test_ipc(void)
{
    fake_backend_config cfg = {2, 0, 0, true};
    fake_backend *f = fake_backend_new(&cfg);
    const th_cuda_backend *be = fake_backend_table(f);
    void *a = NULL, *h = NULL;
    CHECK_INT_EQ(be->malloc(be->ctx, 1, 4096, &a), 0);
    CHECK_INT_EQ(be->host_malloc(be->ctx, 4096, &h), 0);
    unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES], ehandle[TH_CUDA_IPC_HANDLE_BYTES];
    CHECK_INT_EQ(be->ipc_get_mem_handle(be->ctx, a, handle), 0);
    CHECK_INT_EQ(be->ipc_get_mem_handle(be->ctx, (char *)a + 512, ehandle), FAKE_ERR_INVALID_VALUE); /* not a base */
    CHECK_INT_EQ(be->ipc_get_mem_handle(be->ctx, h, ehandle), FAKE_ERR_INVALID_VALUE);             /* host memory */
    void *m1 = NULL, *m2 = NULL;
    CHECK_INT_EQ(be->ipc_open_mem_handle(be->ctx, 0, handle, &m1), FAKE_ERR_INVALID_DEVICE);
    CHECK_INT_EQ(be->ipc_open_mem_handle(be->ctx, 1, handle, &m1), 0);
    CHECK_INT_EQ(be->ipc_open_mem_handle(be->ctx, 1, handle, &m2), 0);
    CHECK(m1 == a && m2 == a);
    CHECK_INT_EQ(fake_backend_ipc_opens(f, a), 2);
    CHECK_INT_EQ(be->ipc_close_mem_handle(be->ctx, 1, m1), 0);
    CHECK_INT_EQ(fake_backend_ipc_opens(f, a), 1);
    CHECK_INT_EQ(fake_backend_problems(f), 0);
    CHECK_INT_EQ(be->free(be->ctx, 1, a), 0); /* still open once: a problem */
    CHECK_INT_EQ(fake_backend_problems(f), 1);
    CHECK_INT_EQ(be->ipc_open_mem_handle(be->ctx, 1, handle, &m1), FAKE_ERR_INVALID_VALUE); /* gone */
    unsigned char junk[TH_CUDA_IPC_HANDLE_BYTES] = {0};
    CHECK_INT_EQ(be->ipc_open_mem_handle(be->ctx, 1, junk, &m1), FAKE_ERR_INVALID_VALUE);
    /* Events: only an IPC event has a handle; the opened event shares its state. */
    void *plain = NULL, *ev = NULL, *opened = NULL;
    void *s = fake_stream_new(f, 1);
    CHECK_INT_EQ(be->event_create(be->ctx, 1, &plain), 0);
    CHECK_INT_EQ(be->ipc_get_event_handle(be->ctx, plain, ehandle), FAKE_ERR_INVALID_RESOURCE_HANDLE);
    CHECK_INT_EQ(be->event_create_ipc(be->ctx, 1, &ev), 0);
    CHECK_INT_EQ(be->ipc_get_event_handle(be->ctx, ev, ehandle), 0);
    CHECK_INT_EQ(be->ipc_open_event_handle(be->ctx, 0, ehandle, &opened), FAKE_ERR_INVALID_DEVICE);
    CHECK_INT_EQ(be->ipc_open_event_handle(be->ctx, 1, ehandle, &opened), 0);
    CHECK_INT_EQ(be->event_record(be->ctx, ev, s), 0);
    bool done = true;
    CHECK_INT_EQ(be->event_query(be->ctx, opened, &done), 0);
    CHECK(!done);
    fake_stream_complete(f, 1, s);
    CHECK_INT_EQ(be->event_query(be->ctx, opened, &done), 0);
    CHECK(done);
    CHECK_INT_EQ(be->event_destroy(be->ctx, ev), 0);
    CHECK_INT_EQ(be->event_query(be->ctx, opened, &done), 0); /* the opened one lives on */
    CHECK_INT_EQ(be->ipc_open_event_handle(be->ctx, 1, ehandle, &ev), FAKE_ERR_INVALID_RESOURCE_HANDLE);
    CHECK_INT_EQ(be->event_destroy(be->ctx, opened), 0);
    CHECK_INT_EQ(be->event_destroy(be->ctx, plain), 0);
    CHECK_INT_EQ(be->host_free(be->ctx, h), 0);
    CHECK_INT_EQ(fake_backend_counters(f).ipc_mem_opens, 5);
    CHECK_INT_EQ(fake_backend_delete(f), 1);

    /* An IPC opening never closed is a leak at teardown, besides the allocation. */
    f = fake_backend_new(&cfg);
    be = fake_backend_table(f);
    CHECK_INT_EQ(be->malloc(be->ctx, 0, 4096, &a), 0);
    CHECK_INT_EQ(be->ipc_get_mem_handle(be->ctx, a, handle), 0);
    CHECK_INT_EQ(be->ipc_open_mem_handle(be->ctx, 0, handle, &m1), 0);
    CHECK_INT_EQ(fake_backend_delete(f), 2);
}

int main(void)
{
    test_begin();
    test_memory();
    test_events();
    test_ipc();
    return test_end("test_cuda_fake_backend");
}
