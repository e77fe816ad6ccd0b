/* shm/share_generic.h: the per-dtype sharing functions, stamped for every dtype through generate/ (see
 * docs/generic.md): th_shm.h stamps the declarations (TH_SHM__DECLARE_ONLY), shm/share.c the definitions. */
#ifndef TH_NAME
#error "shm/share_generic.h is stamped through generate/ by th_shm.h; include th_shm.h instead"
#endif

#ifdef TH_SHM__DECLARE_ONLY

/* Moves t's storage into shared memory in place (th_storage_share_memory): t, and every tensor and view over
 * the same storage, then see shared memory with the same contents. 0, or a negative status (NULL t, ...). */
int TH_DT_PASTE(th_, _share_memory)(TH_NAME(tensor) *t);
/* Whether t's storage is shared memory; false for NULL. */
bool TH_DT_PASTE(th_, _is_shared)(const TH_NAME(tensor) *t);

#else

int TH_DT_PASTE(th_, _share_memory)(TH_NAME(tensor) *t)
{
    return th__shm_share_storage(TH_SHM__STR(TH_DT_PASTE(th_, _share_memory)),
                                 t ? TH_NAME(storage)(t) : NULL, TH_SHM_DEFAULT);
}

bool TH_DT_PASTE(th_, _is_shared)(const TH_NAME(tensor) *t) { return th_storage_is_shared(TH_NAME(storage)(t)); }

#endif
