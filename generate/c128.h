/* generate/c128.h: stamps TH_GENERIC_FILE for c128 (when selected; see generate/select.h).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#include "select.h"
#ifdef TH_HAS_C128
#define TH_DT_PASTE(a, b) a##c128##b /* pastes without expanding the suffix (bool is a macro) */
#define TH_DT_ENUM TH_C128
#define TH_REAL_IS_C128 1
#define TH_REAL_IS_COMPLEX 1
#include "stamp.h"
#endif
#ifndef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
