/* A user's generic file, stamped for every dtype by docs/examples/user_generic.c. */
#define MY_NAME(verb) TH_DT_PASTE(my_, _##verb) /* my_f32_mean: your prefix, never th_ */

int64_t MY_NAME(count_nonzero)(TH_NAME(tensor) *t)
{
    TH_NAME(tensor) *c = TH_NAME(contiguous)(t);
    if (!c) return -1;
    const real *p = TH_NAME(data)(c);
    int64_t n = TH_NAME(numel)(c), count = 0;
    for (int64_t i = 0; i < n; i++) count += TH_REAL_TO_ACCREAL(p[i]) != 0; /* complex: either part */
    TH_NAME(release)(c);
    return count;
}

#undef MY_NAME
