/* limits_vecmath.c: the "libmvec C loop", the machine limit of the exp and tanh rows.
 *
 * A plain loop out[i] = expf(in[i]) in a TU of its own, compiled by run.sh with
 *     -O3 -ffast-math -mavx2 -mfma
 * Under -ffast-math glibc's <math.h> declares expf and tanhf as having vector variants, so gcc calls
 * libmvec's 8-wide AVX2 versions (_ZGVdN8v_expf, _ZGVdN8v_tanhf; link -lmvec -lm). run.sh checks with
 * objdump that they are called and drops the rows if not. This is what a C programmer gets from the
 * compiler and the C library with the usual "fast" flags: within 4 ulp, no special build of anything.
 *
 * Only the functions below are compiled for AVX2: bench_limits.c calls them only when the CPU has AVX2
 * and FMA (__builtin_cpu_supports), and shows the rows as n/a otherwise. With more than one thread the
 * loop is split over OpenMP threads in blocks (built with -fopenmp; without it the pragma is ignored). */
#include <math.h>
#include <stddef.h>

void limits_vm_exp(float *restrict out, const float *restrict in, size_t n, int nthreads);
void limits_vm_tanh(float *restrict out, const float *restrict in, size_t n, int nthreads);

enum { VM_BLOCK = 1 << 16 };

static void exp_loop(float *restrict out, const float *restrict in, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = expf(in[i]);
}

static void tanh_loop(float *restrict out, const float *restrict in, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = tanhf(in[i]);
}

void limits_vm_exp(float *restrict out, const float *restrict in, size_t n, int nthreads)
{
    if (nthreads <= 1) {
        exp_loop(out, in, n);
        return;
    }
    size_t blocks = (n + VM_BLOCK - 1) / VM_BLOCK;
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (size_t k = 0; k < blocks; k++) {
        size_t begin = k * VM_BLOCK, end = begin + VM_BLOCK < n ? begin + VM_BLOCK : n;
        exp_loop(out + begin, in + begin, end - begin);
    }
}

void limits_vm_tanh(float *restrict out, const float *restrict in, size_t n, int nthreads)
{
    if (nthreads <= 1) {
        tanh_loop(out, in, n);
        return;
    }
    size_t blocks = (n + VM_BLOCK - 1) / VM_BLOCK;
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (size_t k = 0; k < blocks; k++) {
        size_t begin = k * VM_BLOCK, end = begin + VM_BLOCK < n ? begin + VM_BLOCK : n;
        tanh_loop(out + begin, in + begin, end - begin);
    }
}
