/* The one translation unit of this consumer that stamps the library's definitions. */
#define TH_IMPLEMENTATION
#include "tensor.h"
