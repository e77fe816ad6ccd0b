/* docs/examples/dist_allreduce.c: data parallel in miniature. Each rank computes a gradient-like tensor from
 * its own shard of the data, all_reduce with TH_REDUCE_AVG averages it across ranks, and every rank ends with
 * the same bits. Run: mpirun -n 2 ./dist_allreduce (docs/dist.md). */
#include <stdio.h>
#include <string.h>

#include "th_dist.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv); /* the program owns MPI_Init and MPI_Finalize */
    th_dist_comm *c = th_dist_comm_from_mpi(MPI_COMM_WORLD);
    if (!c) {
        fprintf(stderr, "%s\n", th_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rank = th_dist_rank(c), size = th_dist_size(c);

    /* this rank's "gradient": 2 x 3 values that depend on the rank */
    th_f32_tensor *grad = th_f32_arange(0, 6, 1);
    th_f32_tensor *g = th_f32_reshape(grad, 2, (int64_t[]){2, 3});
    th_f32_add_scalar_inplace(g, (float)rank);

    int rc = th_f32_all_reduce(c, g, TH_REDUCE_AVG);
    if (rc != TH_OK) fprintf(stderr, "rank %d: %s\n", rank, th_last_error());

    /* every rank holds the average: i + (0 + 1 + ... + size-1) / size */
    float expect_shift = (float)(size - 1) / 2.0f;
    int bad = rc != TH_OK;
    for (int64_t i = 0; i < 6; i++)
        if (th_f32_data(g)[i] != (float)i + expect_shift) bad = 1;

    /* and the same bits everywhere: rank 0's copy, broadcast, compared */
    th_f32_tensor *from0 = th_f32_clone(g);
    if (th_f32_broadcast(c, from0, 0) != TH_OK) bad = 1;
    if (memcmp(th_f32_data(from0), th_f32_data(g), 6 * sizeof(float)) != 0) bad = 1;

    /* a strided view (every other column) reduces like its contiguous copy */
    th_f32_tensor *cols = th_f32_as_strided(g, 2, (int64_t[]){2, 2}, (int64_t[]){3, 2}, 0);
    if (th_f32_all_reduce(c, cols, TH_REDUCE_MAX) != TH_OK) bad = 1;

    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, th_dist_mpi_comm(c));
    if (rank == 0) {
        printf("%d ranks, averaged gradient:", size);
        for (int64_t i = 0; i < 6; i++) printf(" %g", (double)th_f32_data(g)[i]);
        printf("\n%s\n", any_bad ? "MISMATCH" : "all ranks agree");
    }
    th_f32_release(cols);
    th_f32_release(from0);
    th_f32_release(g);
    th_f32_release(grad);
    th_dist_comm_free(c);
    MPI_Finalize();
    return any_bad;
}
