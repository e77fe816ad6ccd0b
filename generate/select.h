/* generate/select.h: which dtypes this translation unit stamps.
 * Written by generate/update.py from generate/dtypes.h: edit those, not this.
 *
 * By default every dtype. To stamp a subset, define TH_SELECT_DTYPES and one TH_WANT_<ENUM> per dtype
 * before including tensor.h:
 *
 *     #define TH_SELECT_DTYPES
 *     #define TH_WANT_F32
 *     #define TH_WANT_I64
 *     #include "tensor.h"
 *
 * For each selected dtype this defines TH_HAS_<ENUM> to 1 (testable with #if) and TH__IF_<sfx>(...)
 * to its arguments (so the X-macro tables can skip dtypes that were not stamped). */
#ifndef TH_GENERATE_SELECT_H
#define TH_GENERATE_SELECT_H

#if defined(TH_SELECT_DTYPES) && !defined(TH_WANT_BOOL) && !defined(TH_WANT_U8) && !defined(TH_WANT_I8) && !defined(TH_WANT_I16) && !defined(TH_WANT_I32) && !defined(TH_WANT_I64) && !defined(TH_WANT_F16) && !defined(TH_WANT_BF16) && !defined(TH_WANT_F32) && !defined(TH_WANT_F64) && !defined(TH_WANT_C64) && !defined(TH_WANT_C128)
#error "TH_SELECT_DTYPES is defined but no TH_WANT_<DTYPE> is: define e.g. TH_WANT_F32 before including tensor.h"
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_BOOL)
#define TH_HAS_BOOL 1
#define TH__IF_bool(...) __VA_ARGS__
#else
#define TH__IF_bool(...)
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_U8)
#define TH_HAS_U8 1
#define TH__IF_u8(...) __VA_ARGS__
#else
#define TH__IF_u8(...)
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_I8)
#define TH_HAS_I8 1
#define TH__IF_i8(...) __VA_ARGS__
#else
#define TH__IF_i8(...)
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_I16)
#define TH_HAS_I16 1
#define TH__IF_i16(...) __VA_ARGS__
#else
#define TH__IF_i16(...)
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_I32)
#define TH_HAS_I32 1
#define TH__IF_i32(...) __VA_ARGS__
#else
#define TH__IF_i32(...)
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_I64)
#define TH_HAS_I64 1
#define TH__IF_i64(...) __VA_ARGS__
#else
#define TH__IF_i64(...)
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_F16)
#define TH_HAS_F16 1
#define TH__IF_f16(...) __VA_ARGS__
#else
#define TH__IF_f16(...)
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_BF16)
#define TH_HAS_BF16 1
#define TH__IF_bf16(...) __VA_ARGS__
#else
#define TH__IF_bf16(...)
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_F32)
#define TH_HAS_F32 1
#define TH__IF_f32(...) __VA_ARGS__
#else
#define TH__IF_f32(...)
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_F64)
#define TH_HAS_F64 1
#define TH__IF_f64(...) __VA_ARGS__
#else
#define TH__IF_f64(...)
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_C64)
#define TH_HAS_C64 1
#define TH__IF_c64(...) __VA_ARGS__
#else
#define TH__IF_c64(...)
#endif

#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_C128)
#define TH_HAS_C128 1
#define TH__IF_c128(...) __VA_ARGS__
#else
#define TH__IF_c128(...)
#endif

#endif
