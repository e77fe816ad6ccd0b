/* Built with the flags of the installed tensor-headers.pc (the header-only form: this file is the implementation
 * TU): cc main.c $(pkg-config --cflags --libs tensor-headers). */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_F64
#define TH_WANT_I32
#include <tensor.h>
#include "consumer_checks.h"

int main(void)
{
    /* The installed header is the one whose version tensor.pc reports (run.sh passes it in). */
#ifdef CONSUMER_PC_VERSION
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", TH_VERSION_MAJOR, TH_VERSION_MINOR, TH_VERSION_PATCH);
    if (strcmp(version, CONSUMER_PC_VERSION) != 0) {
        fprintf(stderr, "tensor.h says version %s, tensor.pc says %s\n", version, CONSUMER_PC_VERSION);
        return 1;
    }
#endif
    return consumer_checks("pkg-config + cc");
}
