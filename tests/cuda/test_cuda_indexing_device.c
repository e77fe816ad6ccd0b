/* tests/cuda/test_cuda_indexing_device.c: the indexing ops on CUDA tensors against the CPU, bit for bit.
 *
 * Every op the device runs (index_select, gather, take, scatter, scatter_add, masked_fill) x its forms (new,
 * _out, _inplace) x all 12 dtypes, on the random cases of index_cases.h: each case's tensors are mirrored on the
 * device in the same layouts (a device copy of each whole storage, viewed with the same offset, sizes and
 * strides: permuted, stepped, flipped), the typed function runs on both sides, and the device's written storage
 * is brought back whole and compared byte for byte with the CPU's (so nothing is written outside the result).
 * A case with an index out of range must fail with the CPU's status and message, leaving everything as it was.
 * Then: repeated indices (scatter's winner and scatter_add's float sums, the same bits on every run), outputs
 * that overlap their inputs, a large gather, and the ops the device refuses. Exits 77 without a usable device. */
#include "tensor.h"
#include "th_cuda.h"
#include "index_cases.h"

#include <stdio.h>

static int runs, refusals;

/* t's layout over a device copy of t's whole storage. */
static th_tensor *mirror(const th_tensor *t)
{
    if (!t) return NULL;
    th_tensor *whole = ix_whole(t);
    th_tensor *dw = whole ? th_tensor_to_cuda(whole, 0) : NULL;
    th_tensor *r = dw ? th_tensor_new_with_storage(th_tensor_dtype(t), th_tensor_storage(dw), th_tensor_offset(t),
                                                   th_tensor_ndim(t), th_tensor_sizes(t), th_tensor_strides(t))
                      : NULL;
    CHECK(r != NULL);
    th_tensor_release(dw);
    th_tensor_release(whole);
    return r;
}

/* A host copy of t, in its layout, over a copy of its whole storage (device or host). */
static th_tensor *deep_copy(const th_tensor *t)
{
    if (!t) return NULL;
    th_tensor *whole = ix_whole(t), *hw = ix_dense(whole);
    th_tensor *r = th_tensor_new_with_storage(th_tensor_dtype(t), th_tensor_storage(hw), th_tensor_offset(t),
                                              th_tensor_ndim(t), th_tensor_sizes(t), th_tensor_strides(t));
    th_tensor_release(hw);
    th_tensor_release(whole);
    return r;
}

static bool same_storage(const th_tensor *host, const th_tensor *dev)
{
    th_tensor *a = ix_whole(host), *b = ix_whole(dev);
    bool same = ix_same_bytes(a, b);
    th_tensor_release(b);
    th_tensor_release(a);
    return same;
}

static bool on_cuda(const th_tensor *t) { return th_storage_device(th_tensor_storage(t)).type == TH_DEVICE_CUDA; }

static void run_case(int op, int form, th_dtype dt, bool bad)
{
    ix_case c, cpu, dev;
    ix_case_make(&c, op, form, dt, bad);
    cpu = c;
    cpu.self = deep_copy(c.self);
    cpu.index = deep_copy(c.index);
    cpu.mask = deep_copy(c.mask);
    cpu.src = deep_copy(c.src);
    cpu.out = deep_copy(c.out);
    dev = c;
    dev.self = mirror(c.self);
    dev.index = mirror(c.index);
    dev.mask = mirror(c.mask);
    dev.src = mirror(c.src);
    dev.out = mirror(c.out);
    int rc_cpu = TH_OK, rc_dev = TH_OK;
    th_tensor *r_cpu = ix_run(&cpu, &rc_cpu);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", rc_cpu ? th_last_error() : "");
    th_tensor *r_dev = ix_run(&dev, &rc_dev);
    CHECK_INT_EQ(rc_dev, rc_cpu);
    if (rc_cpu && rc_dev) {
        CHECK(strcmp(msg, th_last_error()) == 0);
        if (strcmp(msg, th_last_error()) != 0) fprintf(stderr, "  cpu: %s\n  cuda: %s\n", msg, th_last_error());
        refusals++;
    } else if (rc_dev) {
        fprintf(stderr, "  %s %s form %d: %s\n", ix_op_names[op], th_dtype_name(dt), form, th_last_error());
    }
    if (!rc_cpu && !rc_dev && form == IX_NEW) {
        CHECK(on_cuda(r_dev));
        bool same = ix_same_bytes(r_cpu, r_dev);
        CHECK(same);
        if (!same) fprintf(stderr, "  %s %s: the new result differs\n", ix_op_names[op], th_dtype_name(dt));
    }
    /* every storage as the CPU left it: what was written, and the inputs untouched */
    const th_tensor *pairs[5][2] = {{cpu.self, dev.self}, {cpu.index, dev.index}, {cpu.mask, dev.mask},
                                    {cpu.src, dev.src},   {cpu.out, dev.out}};
    for (int k = 0; k < 5; k++) {
        if (!pairs[k][0]) continue;
        bool same = same_storage(pairs[k][0], pairs[k][1]);
        CHECK(same);
        if (!same) fprintf(stderr, "  %s %s form %d: storage %d differs\n", ix_op_names[op], th_dtype_name(dt), form, k);
    }
    if (rc_cpu) CHECK(same_storage(c.self, dev.self) && (!c.out || same_storage(c.out, dev.out)));
    runs++;
    th_tensor_release(r_cpu);
    th_tensor_release(r_dev);
    ix_case_free(&dev);
    ix_case_free(&cpu);
    ix_case_free(&c);
}

/* Long lines of repeated indices: the CPU's winner and the CPU's order of float sums, on every run. */
static void test_duplicates(void)
{
    for (int dt = 0; dt < TH_NUM_DTYPES; dt++) {
        for (int op = IX_SCATTER; op <= IX_SCATTER_ADD; op++) {
            ix_case c;
            memset(&c, 0, sizeof c);
            c.op = op;
            c.form = IX_NEW;
            c.dt = (th_dtype)dt;
            c.dim = 0;
            c.self = ix_tensor(c.dt, 2, (const int64_t[]){3, 64});
            c.src = ix_tensor(c.dt, 2, (const int64_t[]){500, 64});
            c.index = ix_index(2, (const int64_t[]){500, 64}, 3, false);
            int rc = TH_OK;
            th_tensor *want = ix_run(&c, &rc);
            ix_case d = c;
            d.self = mirror(c.self);
            d.src = mirror(c.src);
            d.index = mirror(c.index);
            th_tensor *first = ix_run(&d, &rc);
            CHECK(rc == TH_OK && ix_same_bytes(want, first));
            for (int again = 0; again < 3; again++) {
                th_tensor *next = ix_run(&d, &rc);
                CHECK(rc == TH_OK && ix_same_bytes(first, next));
                th_tensor_release(next);
            }
            th_tensor_release(first);
            th_tensor_release(want);
            ix_case_free(&d);
            ix_case_free(&c);
            runs++;
        }
    }
}

/* Outputs that overlap their inputs read the inputs as they were, as on the CPU. */
static void test_overlap(void)
{
    th_f32_tensor *h = th_f32_from_base(ix_tensor(TH_F32, 2, (const int64_t[]){5, 5}));
    th_i64_tensor *hx = th_i64_from_base(ix_index(2, (const int64_t[]){5, 5}, 5, false));
    th_f32_tensor *d = th_f32_from_base(mirror(th_f32_base(h)));
    th_i64_tensor *dx = th_i64_from_base(mirror(th_i64_base(hx)));
    /* gather into its own source, scatter of a tensor into itself, index_select into a view of the source */
    CHECK_INT_EQ(th_f32_gather_out(h, h, 1, hx), TH_OK);
    CHECK_INT_EQ(th_f32_gather_out(d, d, 1, dx), TH_OK);
    CHECK(same_storage(th_f32_base(h), th_f32_base(d)));
    CHECK_INT_EQ(th_f32_scatter_add_inplace(h, 0, hx, h), TH_OK);
    CHECK_INT_EQ(th_f32_scatter_add_inplace(d, 0, dx, d), TH_OK);
    CHECK(same_storage(th_f32_base(h), th_f32_base(d)));
    th_i64_tensor *hx1 = th_i64_from_base(ix_index(1, (const int64_t[]){4}, 4, false));
    th_i64_tensor *dx1 = th_i64_from_base(mirror(th_i64_base(hx1)));
    th_f32_tensor *hv = th_f32_narrow(h, 0, 1, 4), *dv = th_f32_narrow(d, 0, 1, 4);
    th_f32_tensor *hs = th_f32_narrow(h, 0, 0, 4), *ds = th_f32_narrow(d, 0, 0, 4);
    CHECK_INT_EQ(th_f32_index_select_out(hv, hs, 0, hx1), TH_OK);
    CHECK_INT_EQ(th_f32_index_select_out(dv, ds, 0, dx1), TH_OK);
    CHECK(same_storage(th_f32_base(h), th_f32_base(d)));
    /* a bool tensor masking itself, and a mask that overlaps the result other than exactly */
    th_bool_tensor *hb = th_bool_from_base(ix_tensor(TH_BOOL, 1, (const int64_t[]){9}));
    th_bool_tensor *db = th_bool_from_base(mirror(th_bool_base(hb)));
    CHECK_INT_EQ(th_bool_masked_fill_inplace(hb, hb, false), TH_OK);
    CHECK_INT_EQ(th_bool_masked_fill_inplace(db, db, false), TH_OK);
    CHECK(same_storage(th_bool_base(hb), th_bool_base(db)));
    th_bool_release(db);
    th_bool_release(hb);
    th_f32_release(ds);
    th_f32_release(hs);
    th_f32_release(dv);
    th_f32_release(hv);
    th_i64_release(dx1);
    th_i64_release(hx1);
    th_i64_release(dx);
    th_f32_release(d);
    th_i64_release(hx);
    th_f32_release(h);
}

/* Many blocks of the grid-stride loops, and a message naming the first bad index among many. */
static void test_large(void)
{
    const int64_t n = (int64_t)1 << 21;
    th_f32_tensor *h = th_f32_from_base(ix_tensor(TH_F32, 2, (const int64_t[]){n / 512, 512}));
    th_i64_tensor *hx = th_i64_from_base(ix_index(2, (const int64_t[]){n / 512, 300}, 512, false));
    th_f32_tensor *d = th_f32_from_base(mirror(th_f32_base(h)));
    th_i64_tensor *dx = th_i64_from_base(mirror(th_i64_base(hx)));
    th_f32_tensor *hg = th_f32_gather(h, 1, hx), *dg = th_f32_gather(d, 1, dx);
    CHECK(hg && dg && ix_same_bytes(th_f32_base(hg), th_f32_base(dg)));
    /* two bad values in a contiguous copy: both sides must name the first, 512 */
    th_i64_tensor *bad = th_i64_from_base(ix_dense(th_i64_base(hx)));
    th_i64_data(bad)[5] = 512;
    th_i64_data(bad)[7] = -600;
    th_i64_tensor *dbad = th_i64_from_base(mirror(th_i64_base(bad)));
    CHECK_NULL(th_f32_gather(h, 1, bad), TH_ERR_RANGE, "th_f32_gather", "index 512 is out of range for dim 1 of size 512");
    char msg[256];
    snprintf(msg, sizeof msg, "%s", th_last_error());
    CHECK(th_f32_gather(d, 1, dbad) == NULL && strcmp(msg, th_last_error()) == 0);
    th_i64_release(dbad);
    th_i64_release(bad);
    th_f32_release(dg);
    th_f32_release(hg);
    th_i64_release(dx);
    th_f32_release(d);
    th_i64_release(hx);
    th_f32_release(h);
}

/* What the device refuses, naming the op; and a host index beside a device tensor. */
static void test_refusals(void)
{
    th_tensor *ht = ix_tensor(TH_F32, 1, (const int64_t[]){4}), *hm = ix_tensor(TH_BOOL, 1, (const int64_t[]){4});
    th_tensor *hi = ix_index(1, (const int64_t[]){2}, 4, false);
    th_f32_tensor *d = th_f32_from_base(mirror(ht));
    th_bool_tensor *m = th_bool_from_base(mirror(hm));
    th_i64_tensor *x = th_i64_from_base(mirror(hi));
    th_i64_tensor *hx = th_i64_zeros(1, (const int64_t[]){2});
    th_f32_tensor *v = th_f32_narrow(d, 0, 0, 2);
    CHECK_NULL(th_f32_masked_select(d, m), TH_ERR_UNSUPPORTED, "th_f32_masked_select", "no device kernel for masked_select");
    CHECK_NULL(th_f32_nonzero(d), TH_ERR_UNSUPPORTED, "th_f32_nonzero", "no device kernel for nonzero");
    CHECK_FAILS(th_f32_put_inplace(d, x, v, true), TH_ERR_UNSUPPORTED, "th_f32_put_inplace", "no device kernel for put");
    CHECK_NULL(th_f32_index_select(d, 0, hx), TH_ERR_DEVICE, "th_f32_index_select", "must share one device");
    th_f32_release(v);
    th_i64_release(hx);
    th_i64_release(x);
    th_bool_release(m);
    th_f32_release(d);
    th_tensor_release(hi);
    th_tensor_release(hm);
    th_tensor_release(ht);
}

int main(void)
{
    test_begin();
    if (th_cuda_device_count() == 0) {
        printf("no usable CUDA device (%s): the indexing ops on the device are skipped\n", th_cuda_unavailable_reason());
        return 77;
    }
    ix_copy = th_cuda_copy;
    const int forms[IX_OPS][3] = {{IX_NEW, IX_OUT, -1},     {IX_NEW, IX_OUT, -1},     {IX_NEW, IX_OUT, -1},
                                  {IX_NEW, IX_INPLACE, -1}, {IX_NEW, IX_INPLACE, -1}, {IX_NEW, IX_OUT, IX_INPLACE}};
    for (int op = 0; op < IX_OPS; op++)
        for (int f = 0; f < 3 && forms[op][f] >= 0; f++)
            for (int dt = 0; dt < TH_NUM_DTYPES; dt++)
                for (int rep = 0; rep < 12; rep++)
                    run_case(op, forms[op][f], (th_dtype)dt, op != IX_MASKED_FILL && rep % 6 == 5);
    test_duplicates();
    test_overlap();
    test_large();
    test_refusals();
    printf("%d runs, %d refusals matched\n", runs, refusals);
    return test_end("test_cuda_indexing_device");
}
