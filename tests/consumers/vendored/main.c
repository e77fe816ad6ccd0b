/* tensor.h, tensor_generic.h, core/, ops/ and generate/ copied into vendor/; built with -Ivendor. */
#include "tensor.h"
#include "consumer_checks.h"

int main(void) { return consumer_checks("vendored, -Ivendor"); }
