/* generate/bf16.h: stamps TH_GENERIC_FILE for bf16 (when selected; see generate/select.h).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#include "select.h"
#ifdef TH_HAS_BF16
#define TH_DT_PASTE(a, b) a##bf16##b /* pastes without expanding the suffix (bool is a macro) */
#define TH_DT_ENUM TH_BF16
#define TH_REAL_IS_BF16 1
#define TH_REAL_IS_FLOATING 1
#define TH_REAL_IS_REDUCED 1
#include "stamp.h"
#endif
#ifndef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
