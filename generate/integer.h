/* generate/integer.h: stamps TH_GENERIC_FILE for the integer dtypes (u8 i8 i16 i32 i64).
 * Written by generate/update.py from generate/dtypes.h: edit those, not this. */
#ifndef TH__GENERATING_MANY
#define TH__GENERATING_MANY
#define TH__GENERATING_MANY_OWNER_INTEGER
#endif
#include "u8.h"
#include "i8.h"
#include "i16.h"
#include "i32.h"
#include "i64.h"
#ifdef TH__GENERATING_MANY_OWNER_INTEGER
#undef TH__GENERATING_MANY_OWNER_INTEGER
#undef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
