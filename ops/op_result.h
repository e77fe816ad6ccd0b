/* ops/op_result.h: the result type of one elementwise op, for the op templates unary_op.h and binary_op.h,
 * which include it at their top on each stamping (and ops/op_result_end.h at their end, which undefines it and
 * the op's parameters). From the op's parameters:
 *   TH_OP_BOOL_RESULT   the result is a bool tensor
 *   TH_OP_REAL_RESULT   (complex dtypes) the result is the real dtype of the same precision
 *   neither             the result is of the op's own dtype
 * it defines TH__RES (the result's handle type), TH__RES_ELEM (its element type), TH__RES_DT (its dtype),
 * TH__RES_STORE(x) (a value computed in the compute type, as a result element), and TH__NO_INPLACE where the
 * result's dtype is not the operand's (no in-place form). */
#ifndef TH_NAME
#error "ops/op_result.h is part of the op templates (unary_op.h, binary_op.h): include tensor.h instead"
#endif
#ifdef TH_OP_BOOL_RESULT
#define TH__RES th_bool_tensor
#define TH__RES_ELEM bool
#define TH__RES_DT TH_BOOL
#define TH__RES_STORE(x) (x)
#elif defined(TH_OP_REAL_RESULT) && defined(TH_REAL_IS_C64)
#define TH__RES th_f32_tensor
#define TH__RES_ELEM float
#define TH__RES_DT TH_F32
#define TH__RES_STORE(x) (x)
#elif defined(TH_OP_REAL_RESULT) && defined(TH_REAL_IS_C128)
#define TH__RES th_f64_tensor
#define TH__RES_ELEM double
#define TH__RES_DT TH_F64
#define TH__RES_STORE(x) (x)
#else
#define TH__RES TH_NAME(tensor)
#define TH__RES_ELEM real
#define TH__RES_DT TH_DT_ENUM
#define TH__RES_STORE(x) TH_PRIVATE(from_ct)(x)
#endif
#if defined(TH_OP_BOOL_RESULT) || defined(TH_OP_REAL_RESULT)
#define TH__NO_INPLACE
#endif
