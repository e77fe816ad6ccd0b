/* generate/i32.h: stamps TH_GENERIC_FILE for i32 (when selected; see generate/select.h).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#include "select.h"
#ifdef TH_HAS_I32
#define TH_DT_PASTE(a, b) a##i32##b /* pastes without expanding the suffix (bool is a macro) */
#define TH_DT_ENUM TH_I32
#define TH_REAL_IS_I32 1
#define TH_REAL_IS_INTEGER 1
#include "stamp.h"
#endif
#ifndef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
