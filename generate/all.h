/* generate/all.h: stamps TH_GENERIC_FILE for every dtype (bool integer floating complex).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#ifndef TH__GENERATING_MANY
#define TH__GENERATING_MANY
#define TH__GENERATING_MANY_OWNER_ALL
#endif
#include "bool.h"
#include "integer.h"
#include "floating.h"
#include "complex.h"
#ifdef TH__GENERATING_MANY_OWNER_ALL
#undef TH__GENERATING_MANY_OWNER_ALL
#undef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
