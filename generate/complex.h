/* generate/complex.h: stamps TH_GENERIC_FILE for the complex dtypes (c64 c128).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#ifndef TH__GENERATING_MANY
#define TH__GENERATING_MANY
#define TH__GENERATING_MANY_OWNER_COMPLEX
#endif
#include "c64.h"
#include "c128.h"
#ifdef TH__GENERATING_MANY_OWNER_COMPLEX
#undef TH__GENERATING_MANY_OWNER_COMPLEX
#undef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
