// llama.cpp's C API: libllama (language model) and libmtmd (images into the model).
// Linked through the pkg-config file tools/setup writes (.deps/pkgconfig/lookd-llama.pc).
#include <llama.h>
#include <mtmd.h>
#include <mtmd-helper.h>
#include <ggml.h>
#include <gguf.h>
#include <string.h>

// The llama.cpp build lookd was compiled against: tools/setup writes this header.
#if __has_include(<lookd-llama-build.h>)
#include <lookd-llama-build.h>
#endif
#ifndef LOOKD_LLAMA_BUILD
#define LOOKD_LLAMA_BUILD "(unknown build)"
#endif
static inline const char *lookd_llama_build(void) { return LOOKD_LLAMA_BUILD; }
// 1 when the build has lookd's MiniCPM-V 4.7 patch (tools/patches): lookd feeds canvas positions itself.
#ifndef LOOKD_LLAMA_CANVAS
#define LOOKD_LLAMA_CANVAS 0
#endif
static inline int lookd_llama_canvas(void) { return LOOKD_LLAMA_CANVAS; }

// One integer key override for llama_model_params.kv_overrides (its key is a char array Swift
// cannot fill directly). A list of them ends with an entry whose key is empty.
static inline void lookd_kv_override_int(struct llama_model_kv_override *o, const char *key, int64_t value) {
    memset(o, 0, sizeof *o);
    o->tag = LLAMA_KV_OVERRIDE_TYPE_INT;
    strncpy(o->key, key, sizeof o->key - 1);
    o->val_i64 = value;
}
