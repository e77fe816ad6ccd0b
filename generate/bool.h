/* generate/bool.h: stamps TH_GENERIC_FILE for bool (when selected; see generate/select.h).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#include "select.h"
#ifdef TH_HAS_BOOL
#define TH_DT_PASTE(a, b) a##bool##b /* pastes without expanding the suffix (bool is a macro) */
#define TH_DT_ENUM TH_BOOL
#define TH_REAL_IS_BOOL 1
#include "stamp.h"
#endif
#ifndef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
