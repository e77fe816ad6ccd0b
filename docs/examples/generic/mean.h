/* A user's generic file, stamped for every floating dtype by docs/examples/user_generic.c.
 * real, accreal, TH_NAME, TH_DT_PASTE and TH_REAL_TO_ACCREAL come from generate/stamp.h. */
#define MY_NAME(verb) TH_DT_PASTE(my_, _##verb) /* my_f32_mean: your prefix, never th_ */

/* The mean of every element, summed in accreal (double for float32, float for float16). */
double MY_NAME(mean)(TH_NAME(tensor) *t)
{
    TH_NAME(tensor) *c = TH_NAME(contiguous)(t); /* strided input: read one contiguous copy */
    if (!c) return 0.0;
    const real *p = TH_NAME(data)(c);
    int64_t n = TH_NAME(numel)(c);
    accreal sum = 0;
    for (int64_t i = 0; i < n; i++) sum += TH_REAL_TO_ACCREAL(p[i]);
    TH_NAME(release)(c);
    return n ? (double)sum / (double)n : 0.0;
}

#undef MY_NAME
