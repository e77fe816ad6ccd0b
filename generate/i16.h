/* generate/i16.h: stamps TH_GENERIC_FILE for i16 (when selected; see generate/select.h).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#include "select.h"
#ifdef TH_HAS_I16
#define TH_DT_PASTE(a, b) a##i16##b /* pastes without expanding the suffix (bool is a macro) */
#define TH_DT_ENUM TH_I16
#define TH_REAL_IS_I16 1
#define TH_REAL_IS_INTEGER 1
#include "stamp.h"
#endif
#ifndef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
