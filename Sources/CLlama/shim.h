// llama.cpp's C API: libllama (language model) and libmtmd (images into the model).
// Linked through the pkg-config file tools/setup writes (.deps/pkgconfig/lookd-llama.pc).
#include <llama.h>
#include <mtmd.h>
#include <mtmd-helper.h>
#include <ggml.h>
#include <ggml-cpu.h>
#include <gguf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// The llama.cpp build lookd was compiled against: tools/setup writes this header.
#if __has_include(<lookd-llama-build.h>)
#include <lookd-llama-build.h>
#endif
#ifndef LOOKD_LLAMA_BUILD
#define LOOKD_LLAMA_BUILD "(unknown build)"
#endif
static inline const char *lookd_llama_build(void) { return LOOKD_LLAMA_BUILD; }
// 1 when the build has lookd's patches (tools/patches): lookd feeds MiniCPM-V 4.7's canvas positions itself.
#ifndef LOOKD_LLAMA_CANVAS
#define LOOKD_LLAMA_CANVAS 0
#endif
static inline int lookd_llama_canvas(void) { return LOOKD_LLAMA_CANVAS; }
// 1 when the build pads a down matrix's input to the matrix's width (tools/patches/mtmd-clip-ffn-pad.patch),
// so an int8 tower copy may store a matrix whose rows are not whole Q8_0 blocks padded with zeros.
#ifndef LOOKD_LLAMA_FFN_PAD
#define LOOKD_LLAMA_FFN_PAD 0
#endif
static inline int lookd_llama_ffn_pad(void) { return LOOKD_LLAMA_FFN_PAD; }

// Which of lookd's kernels (tools/patches/ggml-cpu-gemm.patch) run: 3 AVX-512, 2 AVX2 with a 256-bit
// vpdpbusd (AVX-VNNI), 1 AVX2 with FMA and F16C, 0 none (upstream's paths; also a build without the
// patch, whose ggml lacks these functions: they are weak here). The widest this build compiled and
// this CPU has, capped by LOOKD_KERNELS (avx2, avxvnni). lookd_ggml_force_kernels caps it from here on,
// for the tests of the narrower paths ("" or NULL: the widest again); it returns the level in force.
__attribute__((weak)) int lookd_kernels_choose(void);
__attribute__((weak)) int lookd_kernels_force(const char *name);
static inline int lookd_ggml_kernels(void) { return lookd_kernels_choose ? lookd_kernels_choose() : 0; }
static inline int lookd_ggml_force_kernels(const char *name) { return lookd_kernels_force ? lookd_kernels_force(name) : 0; }

// One integer key override for llama_model_params.kv_overrides (its key is a char array Swift
// cannot fill directly). A list of them ends with an entry whose key is empty.
static inline void lookd_kv_override_int(struct llama_model_kv_override *o, const char *key, int64_t value) {
    memset(o, 0, sizeof *o);
    o->tag = LLAMA_KV_OVERRIDE_TYPE_INT;
    strncpy(o->key, key, sizeof o->key - 1);
    o->val_i64 = value;
}

// How many of n denormal results ggml's CPU backend flushed to zero, computing on `threads` threads:
// n with lookd's patch (tools/patches/ggml-flush-denormals.patch) unless GGML_CPU_KEEP_DENORMALS=1,
// 0 without it. 1e-30 scaled by 1e-10 is 1e-40, a denormal. n is a multiple of 16; -1 if ggml could
// not start.
static inline int lookd_ggml_flushed_denormals(int threads, int n) {
    struct ggml_init_params params = { ggml_graph_overhead() + (size_t)n * sizeof(float) * 2 + (1 << 20), NULL, false };
    struct ggml_context *ctx = ggml_init(params);
    if (!ctx) return -1;
    struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, n / 16);
    for (int i = 0; i < n; i++) ((float *)a->data)[i] = 1e-30f;
    struct ggml_tensor *b = ggml_scale(ctx, a, 1e-10f);
    struct ggml_cgraph *graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, b);
    ggml_graph_compute_with_ctx(ctx, graph, threads);
    int flushed = 0;
    for (int i = 0; i < n; i++) flushed += ((float *)b->data)[i] == 0.0f;
    ggml_free(ctx);
    return flushed;
}

// GELU (ggml_gelu: the tanh form) of n values on ggml's CPU backend, one row, on one thread: lookd's
// patch tools/patches/ggml-cpu-attention-gelu.patch computes it in F32 (upstream reads an F16 table).
// 0, or -1 if ggml could not start.
static inline int lookd_ggml_gelu(const float *x, int n, float *out) {
    struct ggml_init_params params = { ggml_graph_overhead() + (size_t)n * 8 + (1 << 20), NULL, false };
    struct ggml_context *ctx = ggml_init(params);
    if (!ctx) return -1;
    struct ggml_tensor *a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    memcpy(a->data, x, (size_t)n * sizeof(float));
    struct ggml_tensor *g = ggml_gelu(ctx, a);
    struct ggml_cgraph *graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, g);
    ggml_graph_compute_with_ctx(ctx, graph, 1);
    memcpy(out, g->data, (size_t)n * sizeof(float));
    ggml_free(ctx);
    return 0;
}

// Attention as libmtmd's vision tower computes it (clip.cpp's flash path): for each of `heads` heads,
// q (nq rows of d, F32) against k and v (nkv rows of d each, stored F16 as clip.cpp casts them):
// softmax(scale q k^T) v, no mask, on `threads` threads. q, k and v are heads blocks of rows; out gets
// nq rows of heads x d (ggml_flash_attn_ext's layout); k_used and v_used the keys and values as stored,
// back in F32. With 64 or more queries ggml takes its tiled path (lookd's patch
// tools/patches/ggml-cpu-attention-gelu.patch converts each head's keys and values once there). 0, or
// -1 if ggml could not start.
static inline int lookd_ggml_attention(const float *q, const float *k, const float *v, int d, int nq, int nkv, int heads,
                                       float scale, int threads, float *out, float *k_used, float *v_used) {
    const size_t kv = (size_t)d * nkv * heads;
    struct ggml_init_params params = { ggml_graph_overhead() + (size_t)d * nq * heads * 8 + kv * 4 + (1 << 22), NULL, false };
    struct ggml_context *ctx = ggml_init(params);
    if (!ctx) return -1;
    struct ggml_tensor *tq = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, d, nq, heads);
    struct ggml_tensor *tk = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, d, nkv, heads);
    struct ggml_tensor *tv = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, d, nkv, heads);
    memcpy(tq->data, q, (size_t)d * nq * heads * sizeof(float));
    ggml_fp32_to_fp16_row(k, (ggml_fp16_t *)tk->data, (int64_t)kv);
    ggml_fp32_to_fp16_row(v, (ggml_fp16_t *)tv->data, (int64_t)kv);
    ggml_fp16_to_fp32_row((const ggml_fp16_t *)tk->data, k_used, (int64_t)kv);
    ggml_fp16_to_fp32_row((const ggml_fp16_t *)tv->data, v_used, (int64_t)kv);
    struct ggml_tensor *r = ggml_flash_attn_ext(ctx, tq, tk, tv, NULL, scale, 0.0f, 0.0f);
    struct ggml_cgraph *graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, r);
    ggml_graph_compute_with_ctx(ctx, graph, threads);
    memcpy(out, r->data, (size_t)d * nq * heads * sizeof(float));
    ggml_free(ctx);
    return 0;
}

// One matrix product on ggml's CPU backend, as a model's layer makes it: out (n rows of m) = x (n
// rows of k, F32) times w (m rows of k) transposed, with w stored as `type` (GGML_TYPE_F16, _BF16 or
// _Q8_0; k a multiple of 32 for Q8_0). w_used gets the weights as stored, back in F32. With n of 2 or
// more and lookd's patch (tools/patches/ggml-cpu-gemm.patch), the product runs lookd's kernels; with
// n = 1, ggml's own dot products. 0, or -1 if ggml could not start.
static inline int lookd_ggml_mul_mat(int type, const float *w, const float *x, int m, int n, int k, int threads,
                                     float *out, float *w_used) {
    struct ggml_init_params params = { ggml_graph_overhead() + (size_t)m * k * 8 + (size_t)n * k * 8 + (size_t)m * n * 4 + (1 << 20),
                                       NULL, false };
    struct ggml_context *ctx = ggml_init(params);
    if (!ctx) return -1;
    struct ggml_tensor *a = ggml_new_tensor_2d(ctx, (enum ggml_type)type, k, m);
    struct ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, n);
    ggml_quantize_chunk((enum ggml_type)type, w, a->data, 0, m, k, NULL);
    memcpy(b->data, x, (size_t)n * k * sizeof(float));
    ggml_get_type_traits((enum ggml_type)type)->to_float(a->data, w_used, (int64_t)m * k);
    struct ggml_tensor *c = ggml_mul_mat(ctx, a, b);
    struct ggml_cgraph *graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, c);
    ggml_graph_compute_with_ctx(ctx, graph, threads);
    memcpy(out, c->data, (size_t)m * n * sizeof(float));
    ggml_free(ctx);
    return 0;
}

// The seconds one layer of MiniCPM-V 4.7's vision tower takes for its matrix products on ggml's CPU
// backend, with its weights stored as `type` (GGML_TYPE_F16 as published, or GGML_TYPE_Q8_0 as lookd's
// int8 copy holds them, the feed-forward's down matrix padded to 4,320): q, k, v and out (1,152 x
// 1,152), up (4,304 x 1,152) and down, for `tokens` tokens on `threads` threads; the best of `runs`
// after one run to warm up. Random weights: the time depends on the shapes and the kernels, not the
// values. Negative if ggml could not start.
static inline double lookd_ggml_tower_layer_seconds(int type, int tokens, int threads, int runs) {
    const int width = 1152, ff = 4304, down = type == GGML_TYPE_Q8_0 ? 4320 : 4304;
    const int rows[6] = { width, width, width, width, ff, width }, cols[6] = { width, width, width, width, width, down };
    size_t bytes = ggml_graph_overhead() + (size_t)(width + down) * tokens * 4 * 2 + (64u << 20);
    for (int i = 0; i < 6; i++) bytes += (size_t)rows[i] * cols[i] * 2 + (size_t)rows[i] * tokens * 4;
    struct ggml_init_params params = { bytes, NULL, false };
    struct ggml_context *ctx = ggml_init(params);
    if (!ctx) return -1;
    struct ggml_cgraph *graph = ggml_new_graph(ctx);
    unsigned seed = 1;
    for (int i = 0; i < 6; i++) {
        struct ggml_tensor *w = ggml_new_tensor_2d(ctx, (enum ggml_type)type, cols[i], rows[i]);
        struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, cols[i], tokens);
        float *values = (float *)malloc((size_t)rows[i] * cols[i] * sizeof(float));
        if (!values) { ggml_free(ctx); return -1; }
        for (size_t j = 0; j < (size_t)rows[i] * cols[i]; j++) values[j] = (float)((seed = seed * 1103515245u + 12345u) >> 8) / 16777216.0f - 0.5f;
        ggml_quantize_chunk((enum ggml_type)type, values, w->data, 0, rows[i], cols[i], NULL);
        free(values);
        for (size_t j = 0; j < (size_t)cols[i] * tokens; j++) ((float *)x->data)[j] = (float)((seed = seed * 1103515245u + 12345u) >> 8) / 16777216.0f - 0.5f;
        ggml_build_forward_expand(graph, ggml_mul_mat(ctx, w, x));
    }
    ggml_graph_compute_with_ctx(ctx, graph, threads);
    double best = 1e30;
    for (int r = 0; r < runs; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        ggml_graph_compute_with_ctx(ctx, graph, threads);
        clock_gettime(CLOCK_MONOTONIC, &b);
        const double t = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
        best = t < best ? t : best;
    }
    ggml_free(ctx);
    return best;
}
