// lookd: a camera's vision tower reuses what it computed for the parts of the picture that did
// not change (MiniCPM-V 4.6/4.7's tower with its ViT merger). Each image part (the chunk of a
// picture: its overview or a slice) keeps, from its last encode, every layer's keys and values,
// the layers' output at the merger, the ViT's output and the final output. The next encode of that
// part recomputes only the tokens whose patch moved by more than a threshold since it was last
// computed: their projections, their MLP, their attention over every token (with the kept keys and
// values of the others), the windows and merged tokens they fall in. A full encode comes every
// `refresh` encodes, when the changed share is over `bound`, and whenever the size or model differ.
#pragma once

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

struct lookd_reuse_part {
    // what the kept tensors are for
    const void * model = nullptr;
    int nx = 0, ny = 0;
    bool valid = false;  // the kept tensors hold a whole encode's results
    int since_full = 0;  // encodes since the last full one
    ggml_context * ctx = nullptr;
    ggml_backend_buffer_t buf = nullptr;
    std::vector<ggml_tensor *> k, v;  // each layer's keys and values [n_embd, that layer's tokens], F16
    ggml_tensor * mid = nullptr;      // the layers' output at the merger [n_embd, n_pos]
    ggml_tensor * vit = nullptr;      // the ViT's output after post_ln [n_embd, n_ds]
    ggml_tensor * out = nullptr;      // the final output [n_mmproj, n_out]
    std::vector<float> ref;           // each patch's pixels when its token was last computed (HWC)

    // this encode's plan
    bool sparse = false;
    std::vector<int32_t> s0;        // changed tokens (row-major patches)
    std::vector<int32_t> w_rows;    // each changed window's 4 tokens, in the merger's order
    std::vector<int32_t> s1;        // changed windows (merged tokens)
    std::vector<int32_t> f_rows[4]; // each changed final group's k-th member
    std::vector<int32_t> s2;        // changed final groups (output tokens)
    std::vector<float> w_mask;      // block-diagonal mask over the changed windows' tokens

    ~lookd_reuse_part() { drop(); }

    void drop() {
        if (buf) ggml_backend_buffer_free(buf);
        if (ctx) ggml_free(ctx);
        buf = nullptr;
        ctx = nullptr;
        k.clear();
        v.clear();
        mid = vit = out = nullptr;
        valid = false;
        since_full = 0;
        ref.clear();
    }

    size_t bytes() const { return buf ? ggml_backend_buffer_get_size(buf) + ref.size() * sizeof(float) : 0; }
};

struct lookd_reuse {
    float threshold = 0.0f;  // a patch's mean absolute change (in the model's normalised units) past which its token is recomputed
    float bound = 0.0f;      // the changed share past which the encode is whole
    int refresh = 0;         // a whole encode at least every `refresh` encodes
    std::vector<std::unique_ptr<lookd_reuse_part>> parts;
    int part = 0;            // the part the next encode is of
    // the last encode's figures
    int changed = 0;
    int total = 0;
    bool reused = false;

    lookd_reuse_part & current() {
        while ((int) parts.size() <= part) parts.emplace_back(new lookd_reuse_part());
        return *parts[part];
    }

    void drop() {
        for (auto & p : parts) p->drop();
    }

    size_t bytes() const {
        size_t n = 0;
        for (auto & p : parts) n += p->bytes();
        return n;
    }
};

// Makes `p`'s tensors for a picture of `nx` × `ny` of this tower (kept as they are when they fit).
static inline bool lookd_reuse_shape(lookd_reuse_part & p, const void * model, int nx, int ny, int patch, int n_layer,
                                     int insert_lid, int n_embd, int n_mmproj) {
    if (p.ctx && p.model == model && p.nx == nx && p.ny == ny) return true;
    p.drop();
    const int pos_w = nx / patch, pos_h = ny / patch;
    const int n_pos = pos_w * pos_h, n_ds = (pos_w / 2) * (pos_h / 2), n_out = (pos_w / 4) * (pos_h / 4);
    ggml_init_params params = { (size_t) (2 * n_layer + 3) * ggml_tensor_overhead(), nullptr, true };
    p.ctx = ggml_init(params);
    if (!p.ctx) return false;
    for (int il = 0; il < n_layer; il++) {
        const int n = il <= insert_lid ? n_pos : n_ds;
        p.k.push_back(ggml_new_tensor_2d(p.ctx, GGML_TYPE_F16, n_embd, n));
        p.v.push_back(ggml_new_tensor_2d(p.ctx, GGML_TYPE_F16, n_embd, n));
    }
    p.mid = ggml_new_tensor_2d(p.ctx, GGML_TYPE_F32, n_embd, n_pos);
    p.vit = ggml_new_tensor_2d(p.ctx, GGML_TYPE_F32, n_embd, n_ds);
    p.out = ggml_new_tensor_2d(p.ctx, GGML_TYPE_F32, n_mmproj, n_out);
    p.buf = ggml_backend_alloc_ctx_tensors_from_buft(p.ctx, ggml_backend_cpu_buffer_type());
    if (!p.buf) {
        p.drop();
        return false;
    }
    p.model = model;
    p.nx = nx;
    p.ny = ny;
    p.ref.assign((size_t) nx * ny * 3, 0.0f);
    return true;
}

// Plans the encode of `img` (HWC floats): which tokens change, and whether it reuses at all.
static inline void lookd_reuse_plan(lookd_reuse & r, lookd_reuse_part & p, const float * img, int nx, int ny, int patch) {
    const int pos_w = nx / patch, pos_h = ny / patch, half_w = pos_w / 2, n_pos = pos_w * pos_h;
    std::vector<char> moved(n_pos, 0);
    int n_moved = 0;
    for (int py = 0; py < pos_h; py++) {
        for (int px = 0; px < pos_w; px++) {
            double sum = 0;
            for (int y = py * patch; y < (py + 1) * patch; y++) {
                const float * a = img + ((size_t) y * nx + px * patch) * 3;
                const float * b = p.ref.data() + ((size_t) y * nx + px * patch) * 3;
                for (int i = 0; i < patch * 3; i++) sum += std::fabs(a[i] - b[i]);
            }
            if (sum / (patch * patch * 3) > r.threshold) {
                moved[py * pos_w + px] = 1;
                n_moved++;
            }
        }
    }
    p.sparse = p.valid && p.since_full + 1 < r.refresh && n_moved <= r.bound * n_pos;
    r.changed = p.sparse ? n_moved : n_pos;
    r.total = n_pos;
    r.reused = p.sparse;
    p.s0.clear(); p.w_rows.clear(); p.s1.clear(); p.s2.clear(); p.w_mask.clear();
    for (auto & f : p.f_rows) f.clear();
    // the patches computed now become the reference of their tokens
    for (int t = 0; t < n_pos; t++) {
        if (p.sparse && !moved[t]) continue;
        const int py = t / pos_w, px = t % pos_w;
        for (int y = py * patch; y < (py + 1) * patch; y++) {
            const size_t at = ((size_t) y * nx + px * patch) * 3;
            std::memcpy(p.ref.data() + at, img + at, (size_t) patch * 3 * sizeof(float));
        }
    }
    if (!p.sparse) return;
    std::vector<char> win((size_t) half_w * (pos_h / 2), 0), grp((size_t) (half_w / 2) * (pos_h / 4), 0);
    for (int t = 0; t < n_pos; t++) {
        if (!moved[t]) continue;
        p.s0.push_back(t);
        const int wy = (t / pos_w) / 2, wx = (t % pos_w) / 2;
        win[wy * half_w + wx] = 1;
        grp[(wy / 2) * (half_w / 2) + wx / 2] = 1;
    }
    for (int w = 0; w < (int) win.size(); w++) {
        if (!win[w]) continue;
        p.s1.push_back(w);
        const int wy = w / half_w, wx = w % half_w;
        for (int k = 0; k < 4; k++) p.w_rows.push_back((2 * wy + (k >> 1)) * pos_w + 2 * wx + (k & 1));
    }
    for (int g = 0; g < (int) grp.size(); g++) {
        if (!grp[g]) continue;
        p.s2.push_back(g);
        const int gy = g / (half_w / 2), gx = g % (half_w / 2);
        for (int k = 0; k < 4; k++) p.f_rows[k].push_back((2 * gy + (k >> 1)) * half_w + 2 * gx + (k & 1));
    }
    const int n = (int) p.w_rows.size();
    p.w_mask.assign((size_t) n * n, std::numeric_limits<float>::lowest());
    for (int w = 0; w < n / 4; w++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) p.w_mask[(size_t) (w * 4 + i) * n + w * 4 + j] = 0.0f;
}
