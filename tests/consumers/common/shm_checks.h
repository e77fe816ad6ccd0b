/* shm_checks.h: what a consumer of the shm/ companion (tensor-shm) does with it.
 *
 * Include it after th_shm.h and consumer_checks.h. shm_checks(way) moves a tensor's storage into shared memory
 * in place, with the descriptor strategy (no manager process needed), and checks that the tensor and a view
 * made before the move still see the same values through the segment. */
#ifndef SHM_CHECKS_H
#define SHM_CHECKS_H

static int shm_checks(const char *way)
{
    int before = consumer__failures;
    th_f64_tensor *a = th_f64_full(2, (int64_t[]){2, 3}, 0.5);
    CONSUMER_CHECK(a != NULL);
    if (!a)
        return 1;
    th_f64_tensor *row = th_f64_select(a, 0, 1); /* a view made before the move */
    CONSUMER_CHECK(row != NULL);
    CONSUMER_CHECK(th_f64_set(a, (int64_t[]){1, 2}, 7.25) == TH_OK);

    CONSUMER_CHECK(!th_f64_is_shared(a));
    CONSUMER_CHECK(th_f64_share_memory(a) == TH_OK);
    CONSUMER_CHECK(th_f64_is_shared(a) && th_f64_is_shared(row));
    CONSUMER_CHECK(th_storage_shm_strategy(th_f64_storage(a)) == TH_SHM_FD);
    CONSUMER_CHECK(row && th_f64_get(row, (int64_t[]){2}) == 7.25);
    CONSUMER_CHECK(th_f64_set(row, (int64_t[]){0}, -1.0) == TH_OK); /* writes a[1][0] in the segment */
    CONSUMER_CHECK(th_f64_get(a, (int64_t[]){1, 0}) == -1.0);
    CONSUMER_CHECK(th_f64_get(a, (int64_t[]){0, 0}) == 0.5);

    th_f64_release(row);
    th_f64_release(a);
    if (consumer__failures != before) {
        fprintf(stderr, "consumer (%s): shm: %d check(s) failed\n", way, consumer__failures - before);
        return 1;
    }
    printf("consumer (%s): shm checks passed\n", way);
    return 0;
}

#endif /* SHM_CHECKS_H */
