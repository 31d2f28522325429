#include <cstdint>
#include <thread>
#include <vector>
static void add_rows(const float* x, float* y, int64_t B, int64_t D1, int64_t D2, int64_t r0, int64_t r1) {
    for (int64_t b = 0; b < B; ++b)
        for (int64_t c = 0; c < D2; ++c) {
            float s = 0.f;
            for (int64_t r = r0; r < r1; ++r) s += x[(b * D1 + r) * D2 + c];
            y[b * D2 + c] += s;
        }
}
extern "C" void sum_dim1_launch(const float* x, float* y, int64_t B, int64_t D1, int64_t D2, void*) {
    for (int64_t i = 0; i < B * D2; ++i) y[i] = 0.f;
    volatile bool worker_done = false;                   // a hand-rolled flag: no happens-before for the sanitizer
    std::thread worker([&] {
        add_rows(x, y, B, D1, D2, D1 / 2, D1);
        asm volatile("" ::: "memory");
        worker_done = true;
    });
    std::vector<float> mine(B * D2, 0.f);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t r = 0; r < D1 / 2; ++r)
            for (int64_t c = 0; c < D2; ++c) mine[b * D2 + c] += x[(b * D1 + r) * D2 + c];
    while (!worker_done) std::this_thread::yield();
    for (int64_t i = 0; i < B * D2; ++i) y[i] += mine[i];
    worker.join();
}
