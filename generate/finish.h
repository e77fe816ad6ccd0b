/* generate/finish.h: the end of every per-dtype generator (generate/f32.h, ...): a generator used on its own
 * is done with TH_GENERIC_FILE; inside a family (all.h, floating.h, ...) the outermost family undefines it. */
#ifndef TH__GENERATING_MANY
#undef TH_GENERIC_FILE
#endif
