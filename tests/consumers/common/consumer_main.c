/* The program of every consumer that builds more than one way from one source: Meson (subproject and
 * pkg-config), pkg-config with plain cc, CMake. Declarations only: the definitions come from the consumer's
 * impl.c (header-only form) or from libtensor (compiled form), whichever the way links.
 *
 * CONSUMER_WAY names the way in the output; CONSUMER_SHM adds the shm/ companion's checks. */
#ifdef CONSUMER_SHM
#include "th_shm.h" /* includes tensor.h */
#else
#include "tensor.h"
#endif
#include "consumer_checks.h"
#ifdef CONSUMER_SHM
#include "shm_checks.h"
#endif

#ifndef CONSUMER_WAY
#define CONSUMER_WAY "consumer"
#endif

int main(void)
{
    int rc = consumer_checks(CONSUMER_WAY);
#ifdef CONSUMER_SHM
    rc |= shm_checks(CONSUMER_WAY);
#endif
    return rc;
}
