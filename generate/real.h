/* generate/real.h: stamps TH_GENERIC_FILE for every dtype but complex: the ones with an order (bool integer floating).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#ifndef TH__GENERATING_MANY
#define TH__GENERATING_MANY
#define TH__GENERATING_MANY_OWNER_REAL
#endif
#include "bool.h"
#include "integer.h"
#include "floating.h"
#ifdef TH__GENERATING_MANY_OWNER_REAL
#undef TH__GENERATING_MANY_OWNER_REAL
#undef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
