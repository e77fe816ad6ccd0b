/* shm/share_generic.h: the per-dtype sharing functions, stamped for every dtype through generate/ (see
 * docs/generic.md): th_shm.h stamps the declarations, shm/share.c the definitions (TH__DEFINING, the one switch of tensor.h). */
#ifndef TH_NAME
#error "shm/share_generic.h is stamped through generate/ by th_shm.h; include th_shm.h instead"
#endif

#ifndef TH__DEFINING

/* Moves t's storage into shared memory in place (th_storage_share_memory): t, and every tensor and view over
 * the same storage, then see shared memory with the same contents. 0, or a negative status (NULL t, t of
 * another dtype: TH_ERR_DTYPE, ...). */
int TH_DT_PASTE(th_, _share_memory)(TH_NAME(tensor) *t);
/* Whether t's storage is shared memory; false for NULL and (with TH_ERR_DTYPE) for t of another dtype. */
bool TH_DT_PASTE(th_, _is_shared)(const TH_NAME(tensor) *t);

#else

/* Through the dtype-erased th_tensor_storage (a typed tensor is a th_tensor), not th_<sfx>_storage: shm/ is
 * built for every dtype, and the program's implementation TU may stamp only some (TH_SELECT_DTYPES). */
int TH_DT_PASTE(th_, _share_memory)(TH_NAME(tensor) *t)
{
    if (th__shm_wrong_dtype(__func__, t, TH_DT_ENUM)) return TH_ERR_DTYPE;
    return th__shm_share_storage(__func__, t ? th_tensor_storage((const th_tensor *)t) : NULL, TH_SHM_DEFAULT);
}

bool TH_DT_PASTE(th_, _is_shared)(const TH_NAME(tensor) *t)
{
    return !th__shm_wrong_dtype(__func__, t, TH_DT_ENUM) && th_storage_is_shared(th_tensor_storage((const th_tensor *)t));
}

#endif
