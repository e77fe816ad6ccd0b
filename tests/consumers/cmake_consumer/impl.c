/* The one translation unit of this consumer that stamps the library's definitions. */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_F64
#define TH_WANT_I32
#include "tensor.h"
