/* core/config.h: options, the linkage of every function (TH_API), the system headers, and the compiler
 * attributes the definitions use.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/config.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

#define TH_VERSION_MAJOR 0
#define TH_VERSION_MINOR 1
#define TH_VERSION_PATCH 0

#if defined(TH_STATIC) && !defined(TH_IMPLEMENTATION)
#define TH_IMPLEMENTATION
#endif
#if defined(TH_IMPLEMENTATION) && defined(__cplusplus)
#error "tensor.h: compile the TH_IMPLEMENTATION translation unit as C (C11); C++ files include tensor.h without it"
#endif
#if !defined(__cplusplus) && (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L)
#error "tensor.h needs C11 or later (-std=c11)"
#endif

#ifndef TH_MAX_DIMS
#define TH_MAX_DIMS 16
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef TH_STATIC
#if defined(__GNUC__)
#define TH_API static __attribute__((unused))
#else
#define TH_API static
#endif
#else
#define TH_API extern
#endif

#else /* TH__DEFINING */

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h> /* the transposed copy's SSE2 blocks (core/copy.h) */
#endif
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h> /* the transposed copy's AVX2 blocks, in functions built with target("avx2") */
#endif
#if defined(__linux__) && !defined(TH_NO_HUGE_PAGES)
#include <sys/mman.h>
#ifndef MADV_HUGEPAGE
/* A strict -std=c11 build hides madvise and its flags; the kernel's value has been 14 since Linux 2.6.38. */
#define MADV_HUGEPAGE 14
extern int madvise(void *addr, size_t length, int advice);
#endif
#define TH__USE_HUGE_PAGES 1
#endif

#if defined(__GNUC__) && !defined(__clang__)
/* Kernels stay vectorised even when the including file is built at -O0 or -O2 (gcc only vectorises
 * loops of unknown trip count from -O3 on). */
#define TH__HOT __attribute__((optimize("O3")))
#else
#define TH__HOT
#endif

#if defined(__FLT16_MAX__) && !defined(TH_NO_FLOAT16)
#define TH__HAVE_FLOAT16 1
__extension__ typedef _Float16 th__native_f16;
#endif

#if defined(__GNUC__)
/* Helpers only some dtypes use: a build that stamps a subset (TH_SELECT_DTYPES) leaves them unused. */
#define TH__MAYBE_UNUSED __attribute__((unused))
/* For the bodies every form of an op shares: one copy each, rather than one inlined into every form. */
#define TH__NOINLINE __attribute__((noinline))
#else
#define TH__MAYBE_UNUSED
#define TH__NOINLINE
#endif

#define TH__STR_(x) #x
#define TH__STR(x) TH__STR_(x)

#endif /* TH__DEFINING */
