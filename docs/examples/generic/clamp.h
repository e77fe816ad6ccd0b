/* A user's generic file, stamped for int64 alone by docs/examples/user_generic.c. */
#define MY_NAME(verb) TH_DT_PASTE(my_, _##verb) /* my_f32_mean: your prefix, never th_ */

/* Clamps every element of a contiguous tensor into [lo, hi], in place. */
int MY_NAME(clamp_inplace)(TH_NAME(tensor) *t, real lo, real hi)
{
    if (!TH_NAME(is_contiguous)(t)) return TH_ERR_SHAPE;
    real *p = TH_NAME(data)(t);
    for (int64_t i = 0, n = TH_NAME(numel)(t); i < n; i++) p[i] = p[i] < lo ? lo : p[i] > hi ? hi : p[i];
    return TH_OK;
}

#undef MY_NAME
