// tools/bench-matmul's timer: ggml_mul_mat (the CPU backend as lookd links it) on the shapes a watch
// frame multiplies, each the best of `reps` runs after one warm-up. Prints one line a shape:
// "name milliseconds". Weights are random, quantized with ggml's own functions; inputs F32.
#include <ggml-cpu.h>
#include <ggml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double best_of(enum ggml_type type, int m, int k, int n, int threads, int reps) {
    size_t mem = (size_t) m * k * 4 + (size_t) k * n * 4 + (size_t) m * n * 4 + (64u << 20);
    struct ggml_init_params params = { mem, NULL, false };
    struct ggml_context * ctx = ggml_init(params);
    struct ggml_tensor * w = ggml_new_tensor_2d(ctx, type, k, m);
    struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, n);
    float * values = malloc((size_t) m * k * sizeof(float));
    srand(1);
    for (size_t i = 0; i < (size_t) m * k; i++) values[i] = (rand() / (float) RAND_MAX - 0.5f) * 0.1f;
    ggml_quantize_chunk(type, values, w->data, 0, m, k, NULL);
    free(values);
    float * xd = x->data;
    for (size_t i = 0; i < (size_t) k * n; i++) xd[i] = rand() / (float) RAND_MAX - 0.5f;
    struct ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, ggml_mul_mat(ctx, w, x));
    ggml_graph_compute_with_ctx(ctx, graph, threads);
    double best = 1e9;
    for (int r = 0; r < reps; r++) {
        double t = now();
        ggml_graph_compute_with_ctx(ctx, graph, threads);
        t = now() - t;
        best = t < best ? t : best;
    }
    ggml_free(ctx);
    return best;
}

// Usage: bench-matmul THREADS REPS TYPE:M:K:N:NAME ...  (TYPE f16, bf16 or q8_0)
int main(int argc, char ** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s THREADS REPS TYPE:M:K:N:NAME...\n", argv[0]);
        return 2;
    }
    int threads = atoi(argv[1]), reps = atoi(argv[2]);
    for (int i = 3; i < argc; i++) {
        char type[16], name[128];
        int m, k, n;
        if (sscanf(argv[i], "%15[^:]:%d:%d:%d:%127[^\n]", type, &m, &k, &n, name) != 5) {
            fprintf(stderr, "bench-matmul: cannot read %s\n", argv[i]);
            return 2;
        }
        enum ggml_type t = !strcmp(type, "f16") ? GGML_TYPE_F16 : !strcmp(type, "bf16") ? GGML_TYPE_BF16 : GGML_TYPE_Q8_0;
        printf("%s %.4f\n", name, best_of(t, m, k, n, threads, reps) * 1e3);
        fflush(stdout);
    }
    return 0;
}
