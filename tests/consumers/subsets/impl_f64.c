/* An implementation TU that stamps only f64: with TH_SELECT_DTYPES it defines the f64 functions and every
 * dtype-independent one (errors, allocators, storages, ...). */
#define TH_SELECT_DTYPES
#define TH_WANT_F64
#define TH_IMPLEMENTATION
#include "tensor.h"
