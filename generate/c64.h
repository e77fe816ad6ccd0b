/* generate/c64.h: stamps TH_GENERIC_FILE for c64 (when selected; see generate/select.h).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#include "select.h"
#ifdef TH_HAS_C64
#define TH_DT_PASTE(a, b) a##c64##b /* pastes without expanding the suffix (bool is a macro) */
#define TH_DT_ENUM TH_C64
#define TH_REAL_IS_C64 1
#define TH_REAL_IS_COMPLEX 1
#include "stamp.h"
#endif
#ifndef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
