/* The benchmark's one implementation TU: it is also the "implementation" row of the compile-time
 * benchmark, so it holds nothing but what a user's would. */
#define TH_IMPLEMENTATION
#include "tensor.h"
