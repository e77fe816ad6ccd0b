// bench_torch.cpp: libtorch's side of the benchmark, through the C++ API a C++ user would write, on one
// thread. Prints "key best median unit" lines with the same keys and method as bench_th.c.
#include <torch/torch.h>
#include <ATen/DLConvertor.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int64_t kSquare = 4096;
constexpr int64_t kVecN = int64_t{16} << 20;
// The same batching as bench_common.h's, for the same reasons.
constexpr double kMinBatchNs = 2e6;
constexpr double kWarmupNs = 50e6;
constexpr int kSmallReps = 31;
constexpr int kBigReps = 11;

double now_ns()
{
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int reps(int full)
{
    const char *quick = std::getenv("BENCH_QUICK");
    return quick && std::strcmp(quick, "1") == 0 ? 5 : full;
}

void report(const char *key, std::vector<double> samples, const char *unit)
{
    std::sort(samples.begin(), samples.end());
    size_t n = samples.size();
    double median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    std::printf("%s %.3f %.3f %s\n", key, samples[0], median, unit);
    std::fflush(stdout);
}

// Keeps the compiler from dropping work whose result is never looked at (see bench_common.h).
void escape(const void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

// The rows named on the command line, or all of them (run.sh runs one group of rows at a time).
std::vector<std::string> wanted_keys;

bool wanted(const char *key)
{
    return wanted_keys.empty() || std::find(wanted_keys.begin(), wanted_keys.end(), key) != wanted_keys.end();
}

// The op is inlined into the batch loop through the template, so the loop costs what bench_th.c's does.
template <typename Op>
void small(const char *key, Op op)
{
    if (!wanted(key)) return;
    auto batch = [&](int64_t iters) {
        for (int64_t i = 0; i < iters; i++) op();
    };
    int64_t iters = 100;
    for (;;) {
        double t0 = now_ns();
        batch(iters);
        if (now_ns() - t0 >= kMinBatchNs) break;
        iters *= 2;
    }
    for (double t0 = now_ns(); now_ns() - t0 < kWarmupNs;) batch(iters);
    std::vector<double> samples;
    for (int r = 0; r < reps(kSmallReps); r++) {
        double t0 = now_ns();
        batch(iters);
        samples.push_back((now_ns() - t0) / static_cast<double>(iters));
    }
    report(key, samples, "ns");
}

template <typename Op>
void big(const char *key, Op op)
{
    if (!wanted(key)) return;
    op();
    op();
    std::vector<double> samples;
    for (int r = 0; r < reps(kBigReps); r++) {
        double t0 = now_ns();
        op();
        samples.push_back((now_ns() - t0) / 1e6);
    }
    report(key, samples, "ms");
}

void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "bench_torch: check failed: %s\n", what);
        std::exit(1);
    }
}

} // namespace

int main(int argc, char **argv)
{
    wanted_keys.assign(argv + 1, argv + argc);
    // run.sh sets BENCH_NTHREADS (and OMP_NUM_THREADS) per row group; everything else runs on 1 thread.
    const char *threads = std::getenv("BENCH_NTHREADS");
    torch::set_num_threads(threads && std::atoi(threads) > 1 ? std::atoi(threads) : 1);

    torch::Tensor small_t = torch::arange(24, torch::kFloat32).view({4, 6});
    torch::Tensor square = torch::arange(kSquare * kSquare, torch::kFloat32).view({kSquare, kSquare});
    torch::Tensor vec = torch::arange(kVecN, torch::kFloat32).remainder(1000);

    check(small_t.t()[5][3].item<float>() == 23.0f, "transpose");
    check(small_t.narrow(0, 1, 2)[0][0].item<float>() == 6.0f, "narrow");
    check(small_t.select(0, 1)[2].item<float>() == 8.0f, "select");
    check(small_t.view({6, 4})[1][0].item<float>() == 4.0f, "view");
    torch::Tensor c = square.t().contiguous();
    check(c.is_contiguous() && c[7][3].item<float>() == static_cast<float>(3 * kSquare + 7), "contiguous");
    check(vec.to(torch::kFloat64)[kVecN - 1].item<double>() == static_cast<double>((kVecN - 1) % 1000),
          "convert");

    // The elementwise math rows: the same operands as bench_th.c's.
    torch::Tensor vec_b = torch::arange(kVecN, torch::kFloat32).remainder(7);
    torch::Tensor xin = (torch::arange(kVecN, torch::kInt64).remainder(1000) - 500).to(torch::kFloat32) / 125.0f;
    torch::Tensor vec_out = torch::zeros({kVecN});
    torch::Tensor bcol = torch::arange(kSquare, torch::kFloat32).view({kSquare, 1});
    torch::Tensor brow = (torch::arange(kSquare, torch::kFloat32).remainder(100) / 4.0f).view({1, kSquare});
    torch::Tensor bout = torch::zeros({kSquare, kSquare});
    torch::Tensor tiny_a = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f});
    torch::Tensor tiny_b = torch::tensor({10.0f, 20.0f, 30.0f, 40.0f});
    // Checking them takes seconds, which the runs of other row groups skip.
    bool math = false;
    for (const char *k : {"tiny_add", "add_new", "add_out", "add_bcast", "exp_out", "tanh_out"}) math |= wanted(k);
    if (math) {
        torch::Tensor x64 = xin.to(torch::kFloat64);
        check(torch::equal(vec + vec_b, (vec.to(torch::kFloat64) + vec_b.to(torch::kFloat64)).to(torch::kFloat32)),
              "add");
        at::add_out(vec_out, vec, vec_b);
        check(vec_out[kVecN - 1].item<float>() == static_cast<float>((kVecN - 1) % 1000 + (kVecN - 1) % 7), "add_out");
        at::add_out(bout, bcol, brow);
        check(bout[4095][99].item<float>() == 4095.0f + 24.75f && bout[7][3].item<float>() == 7.75f, "add_bcast");
        at::exp_out(vec_out, xin);
        check(((vec_out.to(torch::kFloat64) - x64.exp()).abs() <= 1e-6 * x64.exp()).all().item<bool>(), "exp_out");
        at::tanh_out(vec_out, xin);
        check(((vec_out.to(torch::kFloat64) - x64.tanh()).abs() <= 1e-6 * x64.tanh().abs()).all().item<bool>(),
              "tanh_out");
        torch::Tensor t = tiny_a + tiny_b;
        check(t.numel() == 4 && t[0].item<float>() == 11.0f && t[3].item<float>() == 44.0f, "tiny_add");
    }

    // Sums of element i = i % 2 (exact in float in any order: see bench_limits.c) and matrix products into
    // a preallocated out, as cblas_sgemm writes its C; set up only for the rows that use them.
    torch::Tensor sum_in, mm_a[2], mm_b[2], mm_c[2];
    const int64_t mm_n[2] = {1024, 2048};
    if (wanted("sum_all") || wanted("sum_dim0") || wanted("sum_dim1")) {
        sum_in = torch::arange(kSquare * kSquare, torch::kInt64).remainder(2).to(torch::kFloat32).view({kSquare, kSquare});
        check(sum_in.sum().item<float>() == 8388608.0f, "sum_all");
        torch::Tensor cols = torch::arange(kSquare, torch::kInt64).remainder(2).to(torch::kFloat32) * 4096.0f;
        check(torch::equal(sum_in.sum(0), cols), "sum_dim0");
        check(torch::equal(sum_in.sum(1), torch::full({kSquare}, 2048.0f)), "sum_dim1");
    }
    for (int k = 0; k < 2; k++) {
        if (!wanted(k ? "matmul_2048" : "matmul_1024")) continue;
        int64_t n = mm_n[k];
        torch::Tensor idx = torch::arange(n * n, torch::kInt64);
        mm_a[k] = ((idx * 7919).remainder(1000).to(torch::kFloat32) / 1000.0f - 0.5f).view({n, n});
        mm_b[k] = ((idx * 104729).remainder(1000).to(torch::kFloat32) / 1000.0f - 0.5f).view({n, n});
        mm_c[k] = torch::zeros({n, n});
        at::mm_out(mm_c[k], mm_a[k], mm_b[k]);
        torch::Tensor want = at::mm(mm_a[k].to(torch::kFloat64), mm_b[k].to(torch::kFloat64));
        torch::Tensor mag = at::mm(mm_a[k].to(torch::kFloat64).abs(), mm_b[k].to(torch::kFloat64).abs());
        check(((mm_c[k].to(torch::kFloat64) - want).abs() <= 1e-4 * mag + 1e-6).all().item<bool>(), "matmul");
    }

    small("create", [] {
        torch::Tensor t = torch::empty({2, 3}, torch::kFloat32);
        escape(t.unsafeGetTensorImpl());
    });
    small("view_transpose", [&] {
        torch::Tensor v = small_t.transpose(0, 1);
        escape(v.unsafeGetTensorImpl());
    });
    small("view_narrow", [&] {
        torch::Tensor v = small_t.narrow(0, 1, 2);
        escape(v.unsafeGetTensorImpl());
    });
    small("view_select", [&] {
        torch::Tensor v = small_t.select(0, 1);
        escape(v.unsafeGetTensorImpl());
    });
    small("dlpack_roundtrip", [&] {
        torch::Tensor back = at::fromDLPack(at::toDLPack(small_t));
        escape(back.unsafeGetTensorImpl());
    });
    small("view_view", [&] {
        torch::Tensor v = small_t.view({6, 4});
        escape(v.unsafeGetTensorImpl());
    });
    small("tiny_add", [&] {
        torch::Tensor c = tiny_a + tiny_b;
        escape(c.unsafeGetTensorImpl());
    });

    big("contiguous_t", [&] {
        torch::Tensor r = square.t().contiguous();
        escape(r.data_ptr());
    });
    big("clone", [&] {
        torch::Tensor r = square.clone();
        escape(r.data_ptr());
    });
    big("convert_f64", [&] {
        torch::Tensor r = vec.to(torch::kFloat64);
        escape(r.data_ptr());
    });
    big("ones", [] {
        torch::Tensor r = torch::ones({kVecN});
        escape(r.data_ptr());
    });
    big("add_new", [&] {
        torch::Tensor r = vec + vec_b;
        escape(r.data_ptr());
    });
    big("add_out", [&] {
        at::add_out(vec_out, vec, vec_b);
        escape(vec_out.data_ptr());
    });
    big("add_bcast", [&] {
        at::add_out(bout, bcol, brow);
        escape(bout.data_ptr());
    });
    big("exp_out", [&] {
        at::exp_out(vec_out, xin);
        escape(vec_out.data_ptr());
    });
    big("tanh_out", [&] {
        at::tanh_out(vec_out, xin);
        escape(vec_out.data_ptr());
    });
    big("sum_all", [&] {
        torch::Tensor r = sum_in.sum();
        escape(r.data_ptr());
    });
    big("sum_dim0", [&] {
        torch::Tensor r = sum_in.sum(0);
        escape(r.data_ptr());
    });
    big("sum_dim1", [&] {
        torch::Tensor r = sum_in.sum(1);
        escape(r.data_ptr());
    });
    big("matmul_1024", [&] {
        at::mm_out(mm_c[0], mm_a[0], mm_b[0]);
        escape(mm_c[0].data_ptr());
    });
    big("matmul_2048", [&] {
        at::mm_out(mm_c[1], mm_a[1], mm_b[1]);
        escape(mm_c[1].data_ptr());
    });
    return 0;
}
