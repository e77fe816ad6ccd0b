/* An implementation TU that stamps only f32: with TH_SELECT_DTYPES it defines the f32 functions and every
 * dtype-independent one (errors, allocators, storages, ...). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_IMPLEMENTATION
#include "tensor.h"
