/* core/gguf_types.h: GGML's tensor types as GGUF numbers them (name, elements per block, bytes per block, the
 * library's dtype where it has one) and the dequantisers of Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 to f32, each the
 * float32 arithmetic of the gguf package's gguf.quants (so equal bit for bit).
 * Part of core/gguf.h, which includes it at the start of its definitions. */
#ifndef TENSOR_H
#error "core/gguf_types.h is part of tensor.h: include tensor.h"
#endif

typedef struct th__gguf_ttype {
    int id;
    const char *name;
    int block, bytes; /* elements per block, bytes per block */
    th_dtype dtype;
} th__gguf_ttype;

/* The types the gguf package defines (its GGML_QUANT_SIZES); numbers not listed (4, 5, 31-33, 36-38) were
 * retired and are refused as unknown. */
static const th__gguf_ttype th__gguf_ttypes[] = {
    {0, "F32", 1, 4, TH_F32},          {1, "F16", 1, 2, TH_F16},          {2, "Q4_0", 32, 18, TH_DTYPE_INVALID},
    {3, "Q4_1", 32, 20, TH_DTYPE_INVALID}, {6, "Q5_0", 32, 22, TH_DTYPE_INVALID}, {7, "Q5_1", 32, 24, TH_DTYPE_INVALID},
    {8, "Q8_0", 32, 34, TH_DTYPE_INVALID}, {9, "Q8_1", 32, 40, TH_DTYPE_INVALID}, {10, "Q2_K", 256, 84, TH_DTYPE_INVALID},
    {11, "Q3_K", 256, 110, TH_DTYPE_INVALID}, {12, "Q4_K", 256, 144, TH_DTYPE_INVALID},
    {13, "Q5_K", 256, 176, TH_DTYPE_INVALID}, {14, "Q6_K", 256, 210, TH_DTYPE_INVALID},
    {15, "Q8_K", 256, 292, TH_DTYPE_INVALID}, {16, "IQ2_XXS", 256, 66, TH_DTYPE_INVALID},
    {17, "IQ2_XS", 256, 74, TH_DTYPE_INVALID}, {18, "IQ3_XXS", 256, 98, TH_DTYPE_INVALID},
    {19, "IQ1_S", 256, 50, TH_DTYPE_INVALID}, {20, "IQ4_NL", 32, 18, TH_DTYPE_INVALID},
    {21, "IQ3_S", 256, 110, TH_DTYPE_INVALID}, {22, "IQ2_S", 256, 82, TH_DTYPE_INVALID},
    {23, "IQ4_XS", 256, 136, TH_DTYPE_INVALID}, {24, "I8", 1, 1, TH_I8},   {25, "I16", 1, 2, TH_I16},
    {26, "I32", 1, 4, TH_I32},         {27, "I64", 1, 8, TH_I64},         {28, "F64", 1, 8, TH_F64},
    {29, "IQ1_M", 256, 56, TH_DTYPE_INVALID}, {30, "BF16", 1, 2, TH_BF16}, {34, "TQ1_0", 256, 54, TH_DTYPE_INVALID},
    {35, "TQ2_0", 256, 66, TH_DTYPE_INVALID}, {39, "MXFP4", 32, 17, TH_DTYPE_INVALID},
    {40, "NVFP4", 64, 36, TH_DTYPE_INVALID}, {41, "Q1_0", 128, 18, TH_DTYPE_INVALID},
};
#define TH__GGUF_NTTYPES ((int)(sizeof th__gguf_ttypes / sizeof th__gguf_ttypes[0]))

/* The entry of th__gguf_ttypes for a type number, -1 for an unknown one. */
static int th__gguf_ttype_of(uint64_t id)
{
    for (int k = 0; k < TH__GGUF_NTTYPES; k++)
        if ((uint64_t)th__gguf_ttypes[k].id == id) return k;
    return -1;
}

/* A block's f16 scale (2 bytes) or u32 high bits (4 bytes), in the file's byte order. */
static float th__gguf_f16(const unsigned char *p, bool big)
{
    th_float16 h;
    h.bits = (uint16_t)(big ? p[0] << 8 | p[1] : p[1] << 8 | p[0]);
    return th_float16_to_float(h);
}

static uint32_t th__gguf_u32(const unsigned char *p, bool big)
{
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Dequantises nblocks blocks of type id at src into 32 floats each at out. Each product and sum is its own
 * float32 statement, as NumPy computes them (d * q, then + m), never one fused multiply-add. false for a type
 * without a dequantiser. */
static bool th__gguf_dequantize_blocks(int id, const unsigned char *src, int64_t nblocks, bool big, float *out)
{
    if (id != 2 && id != 3 && id != 6 && id != 7 && id != 8) return false;
    for (int64_t b = 0; b < nblocks; b++, out += 32) {
        const unsigned char *p = src;
        float d = th__gguf_f16(p, big), m = 0.0f;
        switch (id) {
        case 2: /* Q4_0: d, 16 bytes of nibbles (low nibbles the first 16 values), each minus 8 */
            for (int j = 0; j < 16; j++) {
                out[j] = d * (float)((p[2 + j] & 0x0f) - 8);
                out[j + 16] = d * (float)((p[2 + j] >> 4) - 8);
            }
            src += 18;
            break;
        case 3: /* Q4_1: d, m, 16 bytes of nibbles; d * q + m */
            m = th__gguf_f16(p + 2, big);
            for (int j = 0; j < 16; j++) {
                float lo = d * (float)(p[4 + j] & 0x0f), hi = d * (float)(p[4 + j] >> 4);
                out[j] = lo + m;
                out[j + 16] = hi + m;
            }
            src += 20;
            break;
        case 6: { /* Q5_0: d, 32 high bits (bit j for value j), 16 bytes of nibbles, each minus 16 */
            uint32_t qh = th__gguf_u32(p + 2, big);
            for (int j = 0; j < 16; j++) {
                int lo = (p[6 + j] & 0x0f) | (int)((qh >> j & 1) << 4), hi = (p[6 + j] >> 4) | (int)((qh >> (j + 16) & 1) << 4);
                out[j] = d * (float)(lo - 16);
                out[j + 16] = d * (float)(hi - 16);
            }
            src += 22;
            break;
        }
        case 7: { /* Q5_1: d, m, 32 high bits, 16 bytes of nibbles; d * q + m */
            m = th__gguf_f16(p + 2, big);
            uint32_t qh = th__gguf_u32(p + 4, big);
            for (int j = 0; j < 16; j++) {
                int lo = (p[8 + j] & 0x0f) | (int)((qh >> j & 1) << 4), hi = (p[8 + j] >> 4) | (int)((qh >> (j + 16) & 1) << 4);
                float a = d * (float)lo, c = d * (float)hi;
                out[j] = a + m;
                out[j + 16] = c + m;
            }
            src += 24;
            break;
        }
        default: /* 8, Q8_0: d, 32 signed bytes */
            for (int j = 0; j < 32; j++) out[j] = d * (float)((int)p[2 + j] - (p[2 + j] >= 128 ? 256 : 0));
            src += 34;
            break;
        }
    }
    return true;
}
