/* Declarations only: the definitions come from impl.c. */
#include "tensor.h"
#include "consumer_checks.h"

#ifndef CONSUMER_WAY
#define CONSUMER_WAY "meson"
#endif

int main(void) { return consumer_checks(CONSUMER_WAY); }
