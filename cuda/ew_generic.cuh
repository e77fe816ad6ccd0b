// cuda/ew_generic.cuh: the per-dtype file cuda/ew_kernels.cu stamps through generate/: the host's op family
// (ops/pointwise.h) in device mode, with the op-name macros its templates use (tensor_generic.h's, which end
// with each of its stampings).
#define TH__OP_PASTE_(op, sfx) op##sfx
#define TH__OP_PASTE(op, sfx) TH__OP_PASTE_(op, sfx)
#define TH__OP_NAME(sfx) TH_NAME(TH__OP_PASTE(TH_OP, sfx))
#define TH__OP_PRIVATE(sfx) TH_PRIVATE(TH__OP_PASTE(TH_OP, sfx))
#define TH__EW_STR_(x) #x
#define TH__EW_STR(x) TH__EW_STR_(x) /* the op's name, for the table (tensor.h's TH__STR is its implementation's) */
#define TH__MAYBE_UNUSED __attribute__((unused)) /* tensor.h defines it in its implementation pass only */
#include "../ops/pointwise.h"
#undef TH__MAYBE_UNUSED
#undef TH__OP_PASTE_
#undef TH__OP_PASTE
#undef TH__OP_NAME
#undef TH__OP_PRIVATE
#undef TH__EW_STR_
#undef TH__EW_STR
