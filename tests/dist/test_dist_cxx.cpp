// tests/dist/test_dist_cxx.cpp: th_dist.h from C++ (-Wextra -Werror clean, Open MPI's C++ bindings left out),
// linked against th_dist: before MPI_Init the communicator is refused, not a crash.
#include <cstdio>
#include <cstring>

#include "th_dist.h"

int main()
{
    th_dist_comm *c = th_dist_comm_from_mpi(MPI_COMM_WORLD);
    bool ok = c == nullptr && th_last_status() == TH_ERR_UNSUPPORTED && std::strstr(th_last_error(), "MPI_Init");
    ok = ok && th_f32_all_reduce(nullptr, nullptr, TH_REDUCE_SUM) == TH_ERR_INVALID;
    ok = ok && std::strcmp(th_reduce_op_name(TH_REDUCE_LOR), "TH_REDUCE_LOR") == 0;
    std::printf("%s\n", ok ? "ok" : th_last_error());
    return ok ? 0 : 1;
}
