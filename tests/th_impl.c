/* The one translation unit that stamps the definitions for the tests that link against them. */
#define TH_IMPLEMENTATION
#include "tensor.h"
