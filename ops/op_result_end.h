/* ops/op_result_end.h: the end of one stamping of an op template (unary_op.h, binary_op.h): undefines what
 * ops/op_result.h defined and every parameter an op template takes, so the next op starts clean. */
#undef TH__RES
#undef TH__RES_ELEM
#undef TH__RES_DT
#undef TH__RES_STORE
#undef TH__NO_INPLACE
#undef TH_OP
#undef TH_OP_BOOL_RESULT
#undef TH_OP_REAL_RESULT
#undef TH_OP_NONZERO_RHS
#undef TH_OP_NONNEGATIVE_RHS
#undef TH_OP_ROW_F32
#undef TH_OP_ROW_F64
