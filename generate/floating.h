/* generate/floating.h: stamps TH_GENERIC_FILE for the floating dtypes (f16 bf16 f32 f64).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#ifndef TH__GENERATING_MANY
#define TH__GENERATING_MANY
#define TH__GENERATING_MANY_OWNER_FLOATING
#endif
#include "f16.h"
#include "bf16.h"
#include "f32.h"
#include "f64.h"
#ifdef TH__GENERATING_MANY_OWNER_FLOATING
#undef TH__GENERATING_MANY_OWNER_FLOATING
#undef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
