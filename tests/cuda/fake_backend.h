/* tests/cuda/fake_backend.h: a th_cuda_backend over host memory, for testing the CUDA companion's policy
 * code (allocators, pinned cache, IPC bookkeeping) on machines without a GPU.
 *
 * MEMORY
 *   Every device allocation and every pinned host allocation is host memory, an anonymous mapping of its
 *   own, page-aligned (cudaMalloc gives 256 bytes), with 64 canary bytes just before and just after the
 *   exact size asked for. The canaries are
 *   checked at every free, by fake_backend_check and at fake_backend_delete; a broken one is a problem (see
 *   PROBLEMS). Each device, and the host, has a capacity: a malloc that would take the live bytes past it
 *   fails with oom_code (FAKE_ERR_MEMORY_ALLOCATION, cudaErrorMemoryAllocation's value); mem_get_info
 *   reports capacity minus live bytes as free. The memory is never filled (not even under MALLOC_PERTURB_):
 *   pages a test does not touch cost nothing, so gigabytes of fake device memory are cheap.
 *
 * STREAMS AND EVENTS
 *   Nothing runs by itself: the test says what has completed. A stream is a counter pair: recorded (the
 *   number of event records on it so far) and completed (how many of them are done). event_record stamps
 *   the event with the stream's next number; event_query says done when the stream's completed count has
 *   reached it. fake_stream_complete* advance completed; event_synchronize completes the event's stream up
 *   to the event (the host waits, so that work is done), device_synchronize completes every stream of the
 *   device. Streams come from fake_stream_new(f, device); NULL is the default stream of the event's device.
 *   Recording an event on a stream of another device fails (cudaErrorInvalidResourceHandle) and counts as a
 *   problem, as CUDA refuses it. A never-recorded event is done.
 *
 * IPC
 *   Handles map within the one process: ipc_get_mem_handle of a live allocation's base gives a 64-byte
 *   handle naming the allocation; ipc_open_mem_handle gives back the same pointer and counts an opening
 *   (fake_backend_ipc_opens); ipc_close_mem_handle counts it off. Freeing an allocation that is still open
 *   somewhere is a problem (CUDA leaves it undefined). Event handles of events made by event_create_ipc
 *   open as new event objects that share the original's state. A handle of a freed allocation or a
 *   destroyed event fails to open (FAKE_ERR_INVALID_VALUE / FAKE_ERR_INVALID_RESOURCE_HANDLE).
 *
 * FAILURES
 *   fake_backend_fail_next(f, FAKE_CALL_x, code, n): the next n calls of that function fail with code
 *   (without doing anything), to test error paths.
 *
 * PROBLEMS
 *   Misuse is counted and described on stderr (unless quiet): a free of a pointer that is not live, a broken
 *   canary, a free while IPC-opened, an event recorded on another device's stream, an unknown event. At
 *   fake_backend_delete, live allocations, events and open IPC mappings are leaks and count too.
 *   fake_backend_delete returns the total; a test fails on a non-zero count.
 *
 * Thread-safe: one mutex guards the whole fake. */
#ifndef TH_TESTS_CUDA_FAKE_BACKEND_H
#define TH_TESTS_CUDA_FAKE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda/backend.h"

/* CUDA's own values, so messages read like the real thing. */
enum {
    FAKE_ERR_INVALID_VALUE = 1,             /* cudaErrorInvalidValue */
    FAKE_ERR_MEMORY_ALLOCATION = 2,         /* cudaErrorMemoryAllocation: the oom_code */
    FAKE_ERR_INVALID_DEVICE = 101,          /* cudaErrorInvalidDevice */
    FAKE_ERR_INVALID_RESOURCE_HANDLE = 400, /* cudaErrorInvalidResourceHandle */
    FAKE_ERR_LAUNCH_FAILURE = 719           /* cudaErrorLaunchFailure: a "sticky" error for injection */
};

/* The functions whose failure can be injected. */
typedef enum fake_call {
    FAKE_CALL_MALLOC,
    FAKE_CALL_FREE,
    FAKE_CALL_HOST_MALLOC,
    FAKE_CALL_HOST_FREE,
    FAKE_CALL_DEVICE_SYNCHRONIZE,
    FAKE_CALL_EVENT_CREATE,
    FAKE_CALL_EVENT_RECORD,
    FAKE_CALL_EVENT_QUERY,
    FAKE_CALL_EVENT_SYNCHRONIZE,
    FAKE_CALL_MEM_GET_INFO,
    FAKE_CALL_IPC_GET_MEM_HANDLE,
    FAKE_CALL_IPC_OPEN_MEM_HANDLE,
    FAKE_CALL_COUNT
} fake_call;

typedef struct fake_backend_config {
    int devices;            /* 0: 1 */
    size_t device_capacity; /* bytes per device; 0: 1 GiB */
    size_t host_capacity;   /* pinned host bytes; 0: 1 GiB */
    bool quiet;             /* do not print problems (tests that provoke them on purpose) */
} fake_backend_config;

/* Every call, counted (successful or not). */
typedef struct fake_counters {
    int64_t mallocs, frees, host_mallocs, host_frees;
    int64_t malloc_fails, host_malloc_fails; /* capacity or injected */
    int64_t device_syncs, event_syncs;
    int64_t event_creates, event_destroys, event_records, event_queries;
    int64_t mem_get_infos;
    int64_t ipc_mem_handles, ipc_mem_opens, ipc_mem_closes, ipc_event_handles, ipc_event_opens;
} fake_counters;

typedef struct fake_backend fake_backend;

/* NULL config: every default. NULL if host memory runs out. */
fake_backend *fake_backend_new(const fake_backend_config *config);
/* The table to hand to the code under test; valid until fake_backend_delete. */
const th_cuda_backend *fake_backend_table(fake_backend *f);
/* Checks every canary, counts leaks (live allocations, events, open IPC mappings), frees everything and
 * returns the number of problems seen over the fake's life. */
int fake_backend_delete(fake_backend *f);
/* Checks the canaries of every live allocation now; returns the number of problems seen so far. */
int fake_backend_check(fake_backend *f);
int fake_backend_problems(fake_backend *f);
fake_counters fake_backend_counters(fake_backend *f);

/* Live allocations and bytes (the exact sizes asked for) of a device, or of pinned host memory with
 * device -1. */
size_t fake_backend_live_bytes(fake_backend *f, int device);
int64_t fake_backend_live_allocs(fake_backend *f, int device);
/* Changes a device's (or, with -1, the host's) capacity from now on. */
void fake_backend_set_capacity(fake_backend *f, int device, size_t capacity);
/* Whether [ptr, ptr + size) lies inside one live allocation of the device (-1: host). */
bool fake_backend_is_live(fake_backend *f, int device, const void *ptr, size_t size);
/* The number the fake gave the live allocation starting at ptr (1, 2, ... in order of malloc), or 0. */
uint64_t fake_backend_alloc_id(fake_backend *f, const void *ptr);
/* The next n calls of `call` fail with code. n 0 cancels. */
void fake_backend_fail_next(fake_backend *f, fake_call call, int code, int n);
/* How many IPC openings of the allocation at base are not closed. */
int fake_backend_ipc_opens(fake_backend *f, const void *base);

/* A new stream of a device (freed by fake_backend_delete); NULL if the device is out of range. */
void *fake_stream_new(fake_backend *f, int device);
/* Completes everything recorded so far on the stream (NULL: the device's default stream). */
void fake_stream_complete(fake_backend *f, int device, void *stream);
/* Completes the stream's records up to number seq (1 = the first record ever made on it). */
void fake_stream_complete_to(fake_backend *f, int device, void *stream, uint64_t seq);
uint64_t fake_stream_recorded(fake_backend *f, int device, void *stream);
uint64_t fake_stream_completed(fake_backend *f, int device, void *stream);
/* Completes every stream of the device, as device_synchronize does, without counting a synchronisation. */
void fake_device_complete(fake_backend *f, int device);
/* Events created and not destroyed. */
int64_t fake_backend_live_events(fake_backend *f);

#endif
