/* generate/stamp.h: stamps TH_GENERIC_FILE once, for the dtype that the including generator file named.
 *
 * Inside the stamped file:
 *   real            the element type (float for f32, th_float16 for f16, th_complex64 for c64)
 *   accreal         the type that sums and other accumulations are carried in
 *   TH_NAME(verb)   the per-dtype name: TH_NAME(empty) is th_f32_empty when stamping f32
 *   TH_PRIVATE(verb) a private per-dtype name: th__f32_verb
 *   TH_DT_ENUM      the dtype's enum value (TH_F32)
 *   TH_DT_PASTE(a, b)  pastes the dtype suffix between a and b: TH_DT_PASTE(my_, _sum) is my_f32_sum. User
 *                   generic files name their own functions with it, under their own prefix.
 *   TH_REAL_TO_ACCREAL(x), TH_ACCREAL_TO_REAL(x)  convert between the two (a cast, or the float16 and
 *                   bfloat16 conversion functions)
 *   TH_REAL_IS_<ENUM> and one kind macro: TH_REAL_IS_BOOL, TH_REAL_IS_INTEGER (with
 *   TH_REAL_IS_UNSIGNED for u8), TH_REAL_IS_FLOATING (with TH_REAL_IS_REDUCED for f16 and bf16, whose
 *   elements are 16-bit structs computed in float) or TH_REAL_IS_COMPLEX.
 * Everything is undefined again afterwards, so the next stamping starts clean. */
#ifndef TH_GENERIC_FILE
#error "define TH_GENERIC_FILE (the generic file to stamp) before including a generate/ header"
#endif
#ifndef TH_DT_PASTE
#error "generate/stamp.h is included by the per-dtype generators (generate/f32.h, ...), not directly"
#endif

#define TH__DT_NAME(prefix, verb) TH_DT_PASTE(prefix, _##verb)

/* A user's own real or accreal macro is saved here and restored at the end. */
#pragma push_macro("real")
#pragma push_macro("accreal")
#undef real
#undef accreal
#define real TH_DT_PASTE(th_, _elem)
#define accreal TH_DT_PASTE(th_, _acc)
#define TH_NAME(verb) TH__DT_NAME(th_, verb)
#define TH_PRIVATE(verb) TH__DT_NAME(th__, verb)

#if defined(TH_REAL_IS_F16)
#define TH_REAL_TO_ACCREAL(x) th_float16_to_float(x)
#define TH_ACCREAL_TO_REAL(x) th_float16_from_float(x)
#elif defined(TH_REAL_IS_BF16)
#define TH_REAL_TO_ACCREAL(x) th_bfloat16_to_float(x)
#define TH_ACCREAL_TO_REAL(x) th_bfloat16_from_float(x)
#else
#define TH_REAL_TO_ACCREAL(x) ((accreal)(x))
#define TH_ACCREAL_TO_REAL(x) ((real)(x))
#endif

#include TH_GENERIC_FILE

#undef TH_REAL_TO_ACCREAL
#undef TH_ACCREAL_TO_REAL

#undef real
#undef accreal
#pragma pop_macro("real")
#pragma pop_macro("accreal")
#undef TH_NAME
#undef TH_PRIVATE
#undef TH__DT_NAME
#undef TH_DT_PASTE
#undef TH_DT_ENUM
#undef TH_REAL_IS_BOOL
#undef TH_REAL_IS_INTEGER
#undef TH_REAL_IS_UNSIGNED
#undef TH_REAL_IS_FLOATING
#undef TH_REAL_IS_REDUCED
#undef TH_REAL_IS_COMPLEX
#undef TH_REAL_IS_U8
#undef TH_REAL_IS_I8
#undef TH_REAL_IS_I16
#undef TH_REAL_IS_I32
#undef TH_REAL_IS_I64
#undef TH_REAL_IS_F16
#undef TH_REAL_IS_BF16
#undef TH_REAL_IS_F32
#undef TH_REAL_IS_F64
#undef TH_REAL_IS_C64
#undef TH_REAL_IS_C128
