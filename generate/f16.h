/* generate/f16.h: stamps TH_GENERIC_FILE for f16 (when selected; see generate/select.h).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#include "select.h"
#ifdef TH_HAS_F16
#define TH_DT_PASTE(a, b) a##f16##b /* pastes without expanding the suffix (bool is a macro) */
#define TH_DT_ENUM TH_F16
#define TH_REAL_IS_F16 1
#define TH_REAL_IS_FLOATING 1
#define TH_REAL_IS_REDUCED 1
#include "stamp.h"
#endif
#ifndef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
