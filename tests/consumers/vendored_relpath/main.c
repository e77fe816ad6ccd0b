/* tensor.h found by a path relative to this file, with no -I at all: the header must find core/, ops/, generate/ and
 * tensor_generic.h by itself. TH_STATIC gives this file a private copy of every function. */
#define TH_STATIC
#include "vendor/tensor.h"
#include "consumer_checks.h"

int main(void) { return consumer_checks("vendored, relative include, TH_STATIC"); }
