// C++ includes tensor.h (declarations only; the definitions come from the C translation unit th_impl.c).
#include <cstdio>
#include <cstring>

#include "tensor.h"

static int failures = 0;
#define EXPECT(cond)                                                              \
    do {                                                                          \
        if (!(cond)) {                                                            \
            failures++;                                                           \
            std::fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                         \
    } while (0)

int main()
{
    int64_t sizes[2] = {2, 3};
    th_f32_tensor *a = th_f32_full(2, sizes, 1.5f);
    th_f32_tensor *t = th_f32_transpose(a, 0, 1);
    int64_t idx[2] = {2, 1};
    EXPECT(th_f32_set(t, idx, 7.0f) == TH_OK);
    int64_t at[2] = {1, 2};
    EXPECT(th_f32_get(a, at) == 7.0f);

    // Complex values cross the C/C++ boundary as two-member structs.
    th_complex64 z = {1.0f, -2.0f};
    th_c64_tensor *c = th_c64_full(2, sizes, z);
    th_complex64 back = th_c64_get(c, at);
    EXPECT(back.re == 1.0f && back.im == -2.0f);
    th_c128_tensor *w = th_c128_convert(th_c64_base(c));
    th_complex128 wide = th_c128_get(w, at);
    EXPECT(wide.re == 1.0 && wide.im == -2.0);

    // float16 elements are their bits.
    th_f16_tensor *h = th_f16_full(2, sizes, th_float16_from_float(0.5f));
    EXPECT(th_float16_to_float(th_f16_get(h, at)) == 0.5f);

    int64_t flat[1] = {6};
    th_f32_tensor *v = th_f32_view(a, 1, flat);
    EXPECT(v != nullptr && th_f32_numel(v) == 6);
    th_f32_release(v);
    th_f32_tensor *bad = th_f32_narrow(a, 1, 2, 5);
    EXPECT(bad == nullptr && th_last_status() == TH_ERR_RANGE);
    EXPECT(std::strstr(th_last_error(), "th_f32_narrow") != nullptr);

    th_f16_release(h);
    th_c128_release(w);
    th_c64_release(c);
    th_f32_release(t);
    th_f32_release(a);
    std::printf("mode_cxx: %d failed\n", failures);
    return failures ? 1 : 0;
}
