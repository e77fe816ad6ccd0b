/* tests/shm/test_shm_full.c: a full /dev/shm is a clean error at allocation, never a SIGBUS later.
 *
 * Runs in a private mount namespace with a 1 MiB tmpfs on /dev/shm (unshare(CLONE_NEWNS) as root, else a user
 * namespace too); exits 77 (skipped) with a message where namespaces are not available. Sharing more than fits
 * fails with TH_ERR_NOMEM naming /dev/shm and the size, leaves the storage private and intact and nothing in
 * /dev/shm; what did fit stays usable to its last byte. The fd strategy (memfd) does not live in /dev/shm and
 * is not limited by it. */
#include "shm_test.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0) return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A mount namespace of our own with a small tmpfs on /dev/shm; 0, or -1 with why in buf. */
static int private_small_dev_shm(char *why, size_t cap)
{
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (unshare(CLONE_NEWNS) != 0) {
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
            snprintf(why, cap, "unshare(CLONE_NEWUSER | CLONE_NEWNS): %s", strerror(errno));
            return -1;
        }
        char map[64];
        snprintf(map, sizeof map, "0 %d 1", (int)uid);
        if (write_file("/proc/self/setgroups", "deny") != 0 || write_file("/proc/self/uid_map", map) != 0) {
            snprintf(why, cap, "writing the user namespace's uid_map: %s", strerror(errno));
            return -1;
        }
        snprintf(map, sizeof map, "0 %d 1", (int)gid);
        if (write_file("/proc/self/gid_map", map) != 0) {
            snprintf(why, cap, "writing the user namespace's gid_map: %s", strerror(errno));
            return -1;
        }
    }
    if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0) { /* the type is ignored */
        snprintf(why, cap, "making / private: %s", strerror(errno));
        return -1;
    }
    if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=1777") != 0) {
        snprintf(why, cap, "mounting a 1 MiB tmpfs on /dev/shm: %s", strerror(errno));
        return -1;
    }
    /* A manager of this namespace's own: one outside would unlink names in the other /dev/shm, and clients
     * outside must not find this one. Its rendezvous directory goes with the tmpfs. */
    if (mkdir("/dev/shm/.th-shm-manager", 0700) != 0) {
        snprintf(why, cap, "mkdir /dev/shm/.th-shm-manager: %s", strerror(errno));
        return -1;
    }
    setenv("TH_SHM_MANAGER_DIR", "/dev/shm/.th-shm-manager", 1);
    return 0;
}

static void test_full(void)
{
    /* 2 MiB into 1 MiB: refused at once. */
    th_f32_tensor *big = th_f32_full(1, SZ(512 * 1024), 2.0f);
    void *before = th_f32_data(big);
    CHECK_FAILS(th_storage_share_memory_with(th_f32_storage(big), TH_SHM_NAME), TH_ERR_NOMEM,
                "th_storage_share_memory_with", "/dev/shm is full: could not reserve 2097152 bytes for shared segment /");
    CHECK(strstr(th_last_error(), "bytes free)") && strstr(th_last_error(), "--shm-size"));
    printf("%s\n", th_last_error());
    CHECK(!th_f32_is_shared(big) && th_f32_data(big) == before && th_f32_get(big, IDX(524287)) == 2.0f);
    CHECK_INT_EQ(shm_test_segments(), 0);
    CHECK_INT_EQ(shm_test_mappings(), 0);
    /* The same through the per-dtype function (with the name strategy as the default) and the handle encoder. */
    CHECK_INT_EQ(th_shm_set_strategy(TH_SHM_NAME), TH_OK);
    CHECK_FAILS(th_f32_share_memory(big), TH_ERR_NOMEM, "th_f32_share_memory", "/dev/shm is full");
    char h[TH_SHM_HANDLE_MAX];
    CHECK_FAILS(th_shm_handle_encode(th_f32_base(big), h, sizeof h), TH_ERR_NOMEM, "th_shm_handle_encode",
                "/dev/shm is full");
    CHECK_INT_EQ(th_shm_set_strategy(TH_SHM_DEFAULT), TH_OK);

    /* 768 KiB fit; another 512 KiB do not; the first stays good to its last byte (no SIGBUS). */
    th_u8_tensor *a = th_u8_full(1, SZ(768 * 1024), 1);
    CHECK_INT_EQ(th_storage_share_memory_with(th_u8_storage(a), TH_SHM_NAME), TH_OK);
    th_u8_tensor *b = th_u8_full(1, SZ(512 * 1024), 1);
    CHECK_FAILS(th_storage_share_memory_with(th_u8_storage(b), TH_SHM_NAME), TH_ERR_NOMEM,
                "th_storage_share_memory_with", "could not reserve 524288 bytes");
    memset(th_u8_data(a), 9, 768 * 1024);
    CHECK_INT_EQ(th_u8_get(a, IDX(768 * 1024 - 1)), 9);
    CHECK_INT_EQ(shm_test_segments(), 1);

    /* The allocator as the default: the tensor is not made (the storage layer's words, status NOMEM). */
    void *ctx;
    const th_allocator *saved = th_default_allocator(&ctx);
    th_set_default_allocator(th_shm_allocator(TH_SHM_NAME), NULL);
    th_clear_error();
    th_u8_tensor *c = th_u8_zeros(1, SZ(512 * 1024));
    th_set_default_allocator(saved, ctx);
    CHECK(c == NULL && th_last_status() == TH_ERR_NOMEM);
    th_u8_release(b);
    th_u8_release(a);
    CHECK_INT_EQ(shm_test_segments(), 0);

    /* memfds do not live in /dev/shm. */
    CHECK_INT_EQ(th_storage_share_memory_with(th_f32_storage(big), TH_SHM_FD), TH_OK);
    CHECK(th_f32_get(big, IDX(524287)) == 2.0f);
    th_f32_release(big);
}

int main(void)
{
    char why[256];
    if (private_small_dev_shm(why, sizeof why) != 0) {
        printf("test_shm_full: SKIPPED: no private mount namespace for a small /dev/shm (%s)\n", why);
        return 77;
    }
    shm_test_begin("full");
    test_full();
    return shm_test_end("test_shm_full");
}
