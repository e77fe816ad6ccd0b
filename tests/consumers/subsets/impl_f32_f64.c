/* The rule that works: one implementation TU, stamping every dtype that any TU of the program calls. */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_F64
#define TH_IMPLEMENTATION
#include "tensor.h"
