/* tests/cuda/ipc_fake.h: a CUDA backend over host memory for the IPC tests (tests/cuda/ipc_fake.c).
 *
 * Device memory is malloc'd; a memory handle carries the base pointer and the pid that made it, so a forked
 * child (which has a copy of the memory at the same address) can "open" it, while the making process is
 * refused as CUDA refuses it ("invalid context"). Events count their records and waits. Every call is
 * counted, and the next call of a kind can be made to fail with a given code. */
#ifndef TH_TESTS_CUDA_IPC_FAKE_H
#define TH_TESTS_CUDA_IPC_FAKE_H

#include "cuda/backend.h"

enum {
    IPC_FAKE_OK = 0,
    IPC_FAKE_INVALID_VALUE = 1,
    IPC_FAKE_OOM = 2,
    IPC_FAKE_INVALID_CONTEXT = 3,
    IPC_FAKE_INJECTED = 4
};

typedef struct ipc_fake {
    th_cuda_backend backend;
    int devices;
    /* calls made */
    int mallocs, frees, mem_handles, opens, closes;
    int events_created, events_destroyed, records, event_handles, event_opens, syncs;
    int open_memory;          /* segments opened and not closed */
    /* the next such call fails with this code (then the field goes back to 0) */
    int fail_open_mem, fail_open_event, fail_sync, fail_record, fail_create_event, fail_get_mem, fail_close;
} ipc_fake;

/* A fake with `devices` devices; fake->backend is the table to hand to th__cuda_ipc_configure. */
void ipc_fake_init(ipc_fake *fake, int devices);
/* Device memory on device (host memory here), and its freeing. */
void *ipc_fake_malloc(ipc_fake *fake, int device, size_t bytes);
void ipc_fake_free(ipc_fake *fake, void *ptr);

#endif
