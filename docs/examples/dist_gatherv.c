/* docs/examples/dist_gatherv.c: uneven shares along dim 0. Rank r holds r + 1 rows of a 3-column table (a
 * shard of a data set of unequal parts); gatherv_to puts them together on rank 0, scatterv_from deals them out
 * again, and all_gather_list gives every rank each rank's row count, one tensor per rank.
 * Run: mpirun -n 3 ./dist_gatherv (docs/dist.md). */
#include <stdio.h>

#include "th_dist.h"

enum { MAX_RANKS = 64 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    th_dist_comm *c = th_dist_comm_from_mpi(MPI_COMM_WORLD);
    if (!c) {
        fprintf(stderr, "%s\n", th_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rank = th_dist_rank(c), size = th_dist_size(c), bad = size > MAX_RANKS;
    if (bad) size = 1; /* (this example's arrays stop at 64 ranks) */

    /* counts of rows, the same array on every rank: rank r has r + 1 rows */
    int64_t counts[MAX_RANKS], total = 0;
    for (int r = 0; r < size; r++) total += counts[r] = r + 1;

    /* this rank's shard: row i holds 10 * rank + i in each of its 3 columns */
    th_f32_tensor *mine = th_f32_zeros(2, (int64_t[]){rank + 1, 3});
    for (int64_t i = 0; i <= rank; i++)
        for (int64_t j = 0; j < 3; j++) th_f32_set(mine, (int64_t[]){i, j}, (float)(10 * rank + i));

    /* all rows on rank 0, in rank order (the other ranks' out is not used: NULL) */
    th_f32_tensor *table = rank == 0 ? th_f32_zeros(2, (int64_t[]){total, 3}) : NULL;
    bad |= th_f32_gatherv_to(c, table, mine, counts, size, 0) != TH_OK;
    if (rank == 0 && !bad) {
        int64_t row = 0;
        for (int r = 0; r < size; r++)
            for (int64_t i = 0; i <= r; i++, row++)
                bad |= th_f32_get(table, (int64_t[]){row, 2}) != (float)(10 * r + i);
        printf("rank 0 gathered %lld rows from %d ranks\n", (long long)total, size);
    }

    /* and dealt out again: every rank gets its own rows back */
    th_f32_tensor *back = th_f32_zeros(2, (int64_t[]){rank + 1, 3});
    bad |= th_f32_scatterv_from(c, back, table, counts, size, 0) != TH_OK;
    for (int64_t i = 0; i <= rank && !bad; i++) bad |= th_f32_get(back, (int64_t[]){i, 0}) != (float)(10 * rank + i);

    /* every rank's row count, one 0-d tensor per rank */
    th_i64_tensor *n = th_i64_full(0, NULL, rank + 1), *each[MAX_RANKS];
    for (int r = 0; r < size; r++) each[r] = th_i64_zeros(0, NULL);
    bad |= th_i64_all_gather_list(c, each, size, n) != TH_OK;
    for (int r = 0; r < size; r++) {
        bad |= th_i64_get(each[r], NULL) != counts[r];
        th_i64_release(each[r]);
    }
    if (bad) fprintf(stderr, "rank %d: %s\n", rank, th_last_error());

    th_i64_release(n);
    th_f32_release(back);
    th_f32_release(table);
    th_f32_release(mine);
    th_dist_comm_free(c);
    int worst = 0;
    MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
