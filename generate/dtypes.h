/* generate/dtypes.h: the one list of dtypes.
 *
 * Every table that depends on the set of dtypes is expanded from TH_FOREACH_DTYPE: the th_dtype enum,
 * the traits table (name, size, DLPack code), the element typedefs, the _Generic front end, the list of
 * public names and the test matrix. The columns are:
 *
 *   X(sfx, ENUM, elem, acc, kind, dlpack_code, bits)
 *
 *   sfx          the name suffix: th_<sfx>_empty, th_<sfx>_tensor
 *   ENUM         the enum value is TH_<ENUM>
 *   elem         the C type of one element
 *   acc          the type sums and other accumulations are carried in
 *   kind         TH_KIND_BOOL / _UINT / _INT / _FLOAT / _COMPLEX
 *   dlpack_code  DLPack's type code (kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLComplex 5, kDLBool 6)
 *   bits         element width in bits, as DLPack counts it
 *
 * Adding a dtype: one line here, then `python3 generate/update.py`, which writes its generator file
 * generate/<sfx>.h, its place in the family headers, its block in select.h and the install list
 * (generate/meson.build); tests/check_names.py fails while any of them is stale. A dtype of a new kind also
 * needs its conversions in tensor_generic.h (to_f64, from_i64, ...). */
#ifndef TH_GENERATE_DTYPES_H
#define TH_GENERATE_DTYPES_H

#define TH_FOREACH_DTYPE(X)                                                  \
    X(bool, BOOL, bool,          int64_t,        TH_KIND_BOOL,    6, 8)      \
    X(u8,   U8,   uint8_t,       int64_t,        TH_KIND_UINT,    1, 8)      \
    X(i8,   I8,   int8_t,        int64_t,        TH_KIND_INT,     0, 8)      \
    X(i16,  I16,  int16_t,       int64_t,        TH_KIND_INT,     0, 16)     \
    X(i32,  I32,  int32_t,       int64_t,        TH_KIND_INT,     0, 32)     \
    X(i64,  I64,  int64_t,       int64_t,        TH_KIND_INT,     0, 64)     \
    X(f16,  F16,  th_float16,    float,          TH_KIND_FLOAT,   2, 16)     \
    X(bf16, BF16, th_bfloat16,   float,          TH_KIND_FLOAT,   4, 16)     \
    X(f32,  F32,  float,         double,         TH_KIND_FLOAT,   2, 32)     \
    X(f64,  F64,  double,        double,         TH_KIND_FLOAT,   2, 64)     \
    X(c64,  C64,  th_complex64,  th_complex128,  TH_KIND_COMPLEX, 5, 64)     \
    X(c128, C128, th_complex128, th_complex128,  TH_KIND_COMPLEX, 5, 128)

#endif
