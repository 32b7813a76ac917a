// libkwb_bridge.so's C ABI (core/gpu/bridge_api.h), as the PyTorch bridge
// calls it through ctypes. The host-side functions (tolerances, metrics, zero
// acceptance, argument errors) are checked everywhere; the device part (fill,
// two-pass scan with a known written pattern, hash) only where a CUDA device
// is present, and is reported as skipped otherwise.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/bridge/bridge_api.h"
#include "gpu_test.h"

namespace {

const char* kTest = "tst_gpu_bridge_api";

bool near(double a, double b, double tol = 1e-12) { return std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b)); }

void hostChecks()
{
    GT_CHECK(kwb_bridge_abi_version() == KWB_BRIDGE_ABI_VERSION);
    GT_CHECK(kwb_bridge_sentinel(4, 0) != kwb_bridge_sentinel(4, 1));
    GT_CHECK(kwb_bridge_sentinel(2, 0) <= 0xffffU && kwb_bridge_sentinel(8, 1) > 0xffffffffULL);
    GT_CHECK(kwb_bridge_padded_bytes(1, 4) == 512);
    GT_CHECK(kwb_bridge_padded_bytes(129, 4) == 1024);
    GT_CHECK(kwb_bridge_padded_bytes(10, 3) < 0);

    double atol = 0, rtol = 0;
    GT_CHECK(kwb_bridge_tolerance("kernelbench", "float32", 0, 0, &atol, &rtol) == 0 && near(atol, 1e-4) && near(rtol, 1e-4));
    GT_CHECK(kwb_bridge_tolerance("kernelbench", "float16", 0, 0, &atol, &rtol) == 0 && near(atol, 1e-2));
    GT_CHECK(kwb_bridge_tolerance("kernelbench_legacy", "fp32", 0, 0, &atol, &rtol) == 0 && near(rtol, 1e-2));
    GT_CHECK(kwb_bridge_tolerance("explicit", "fp32", 0.5, 0.25, &atol, &rtol) == 0 && near(atol, 0.5) && near(rtol, 0.25));
    GT_CHECK(kwb_bridge_tolerance("nonsense", "fp32", 0, 0, &atol, &rtol) < 0);
    GT_CHECK(std::strstr(kwb_bridge_last_error(), "unknown policy 'nonsense'") != nullptr);
    GT_CHECK(kwb_bridge_tolerance("kernelbench", "float128", 0, 0, &atol, &rtol) < 0);
    GT_CHECK(std::strstr(kwb_bridge_last_error(), "float128") != nullptr);

    // Hand-computed metrics: one element off by 0.1 against atol = rtol = 1e-4.
    const float ref[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    const float out[4] = {1.0f, 2.0f, 3.0f, 4.1f};
    KwbBridgeMetrics m{};
    GT_CHECK(kwb_bridge_compare(out, ref, 4, 1e-4, 1e-4, &m) == 0);
    GT_CHECK(m.count == 4 && m.allclose == 0 && m.out_of_tolerance == 1 && m.first_mismatch == 3);
    GT_CHECK(near(m.out_of_tolerance_share, 0.25));
    GT_CHECK(near(m.max_abs_error, 0.1, 1e-6));
    GT_CHECK(near(m.rel_l2_error, 0.1 / std::sqrt(30.0), 1e-5));
    GT_CHECK(near(m.ref_rms, std::sqrt(30.0 / 4.0), 1e-6));
    GT_CHECK(m.zeros_pass == 0 && m.nan_count == 0);
    const float nanOut[4] = {1.0f, NAN, 3.0f, INFINITY};
    GT_CHECK(kwb_bridge_compare(nanOut, ref, 4, 1e-4, 1e-4, &m) == 0);
    GT_CHECK(m.allclose == 0 && m.nan_count == 1 && m.inf_count == 1 && m.out_of_tolerance == 2);

    // Zero acceptance: tiny outputs pass with zeros at atol 1e-4, ordinary ones do not.
    const float tiny[3] = {3e-5f, 5e-5f, 9e-5f};
    GT_CHECK(kwb_bridge_zeros_pass(tiny, 3, 1e-4, 1e-4) == 1);
    GT_CHECK(kwb_bridge_zeros_pass(ref, 4, 1e-4, 1e-4) == 0);
    GT_CHECK(kwb_bridge_compare(nullptr, ref, 4, 1e-4, 1e-4, &m) < 0);
    GT_CHECK(std::strstr(kwb_bridge_last_error(), "compare") != nullptr);

    // Scanner misuse is reported, not crashed on.
    void* s = kwb_bridge_scanner_create();
    GT_CHECK(s != nullptr);
    KwbBridgeCoverage cov{};
    GT_CHECK(kwb_bridge_scan_collect(s, &cov, nullptr, 0, nullptr, 0, nullptr) < 0);
    GT_CHECK(std::strstr(kwb_bridge_last_error(), "before pass B") != nullptr);
    GT_CHECK(kwb_bridge_scan_second(s, reinterpret_cast<void*>(std::uintptr_t{4096}), nullptr) < 0);
    kwb_bridge_scanner_destroy(s);
    GT_CHECK(kwb_bridge_fill_sentinel(reinterpret_cast<void*>(std::uintptr_t{4100}), 4, 4, 0, nullptr) < 0);
    GT_CHECK(std::strstr(kwb_bridge_last_error(), "16-byte aligned") != nullptr);
}

// A 2-D output of 300 x 1000 floats of which the kernel-free "candidate" (a
// host copy) writes rows 0..149 in run A and rows 0..99 in run B: 100 rows
// count as written, and the grid shows it per tile row.
void deviceChecks()
{
    const std::int64_t rows = 300, cols = 1000, n = rows * cols;
    const std::int64_t bytes = kwb_bridge_padded_bytes(n, 4);
    void* d = nullptr;
    if (cudaMalloc(&d, static_cast<std::size_t>(bytes)) != cudaSuccess) {
        GT_CHECK(false);
        return;
    }
    std::vector<float> host(static_cast<std::size_t>(n), 1.5f);
    const std::int64_t shape[2] = {rows, cols};
    void* s = kwb_bridge_scanner_create();
    auto writeRows = [&](std::int64_t r) {
        return cudaMemcpy(d, host.data(), static_cast<std::size_t>(r * cols * 4), cudaMemcpyHostToDevice) == cudaSuccess;
    };
    GT_CHECK(kwb_bridge_fill_sentinel(d, n, 4, 0, nullptr) == 0);
    GT_CHECK(writeRows(150));
    GT_CHECK(kwb_bridge_scan_first(s, d, shape, 2, 4, 3, 4, nullptr) == 0);
    GT_CHECK(kwb_bridge_fill_sentinel(d, n, 4, 1, nullptr) == 0);
    GT_CHECK(writeRows(100));
    GT_CHECK(kwb_bridge_scan_second(s, d, nullptr) == 0);
    KwbBridgeCoverage cov{};
    float grid[12] = {};
    std::int64_t first[4] = {};
    GT_CHECK(kwb_bridge_scan_collect(s, &cov, grid, 12, first, 4, nullptr) == 0);
    GT_CHECK(cov.elements == n && cov.written == 100 * cols && cov.written_first_pass == 150 * cols);
    GT_CHECK(cov.grid_rows == 3 && cov.grid_cols == 4);
    GT_CHECK(grid[0] == 1.0f && grid[4] == 0.0f && grid[8] == 0.0f);
    GT_CHECK(cov.first_unwritten_count == 4 && first[0] == 100 * cols && first[3] == 100 * cols + 3);
    kwb_bridge_scanner_destroy(s);

    // Hash: equal bytes hash equal, one changed element changes it.
    std::uint64_t h1 = 0, h2 = 0, h3 = 0;
    GT_CHECK(kwb_bridge_hash(d, n * 4, &h1, nullptr) == 0);
    GT_CHECK(kwb_bridge_hash(d, n * 4, &h2, nullptr) == 0);
    const float other = 2.5f;
    GT_CHECK(cudaMemcpy(static_cast<float*>(d) + 12345, &other, 4, cudaMemcpyHostToDevice) == cudaSuccess);
    GT_CHECK(kwb_bridge_hash(d, n * 4, &h3, nullptr) == 0);
    GT_CHECK(h1 == h2 && h1 != h3);

    char info[8192];
    GT_CHECK(kwb_bridge_device_info_json(0, info, sizeof info) > 0 && std::strstr(info, "\"sm_count\"") != nullptr);
    cudaFree(d);
}

} // namespace

// ABI 3 (issue 12), host side: members measured elsewhere are decoded strictly,
// own-kernel names and comparison kinds are checked before any device work.
void abi3Checks()
{
    void* s = kwb_bridge_session_create();
    GT_CHECK(kwb_bridge_session_set_member(s, "host_timing",
                 R"({"candidate_ms": 0.5, "reference_ms": 0.75, "trials": 5, "measured_by": "judge"})") == 0);
    GT_CHECK(kwb_bridge_session_set_member(s, "host_timing", R"({"candidate_ms": "fast", "measured_by": "judge"})") < 0);
    GT_CHECK(std::strstr(kwb_bridge_last_error(), "host_timing.candidate_ms") != nullptr);
    GT_CHECK(kwb_bridge_session_set_member(s, "host_timing", R"({"measured_by": "candidate"})") < 0);
    GT_CHECK(std::strstr(kwb_bridge_last_error(), "measured_by") != nullptr);
    GT_CHECK(kwb_bridge_session_set_member(s, "verdict", "{}") < 0);
    GT_CHECK(kwb_bridge_session_set_member(s, "isolation", "not json") < 0);
    GT_CHECK(kwb_bridge_session_set_member(s, "isolation",
                 R"({"reference_process": "separate", "sandbox": "seccomp", "violations": ["ptrace"]})") == 0);
    // The sanitizer pass's raw runs, parsed by core: a report with errors, and a run that did not answer.
    GT_CHECK(kwb_bridge_session_set_member(s, "sanitizer_logs",
                 R"([{"tool": "memcheck", "answered": true, "log": "========= Invalid __global__ read of size 4 bytes\n=========     at k+0x10\n========= ERROR SUMMARY: 3 errors\n"},
                     {"tool": "initcheck", "answered": false, "detail": "the worker died", "log": "========= ERROR SUMMARY: 0 errors\n"},
                     {"tool": "racecheck", "answered": false, "detail": "the candidate worker exited with status 6", "log": "========= Error: process didn't terminate successfully\n========= ERROR SUMMARY: 162434 errors\n"}])") == 0);
    GT_CHECK(kwb_bridge_session_set_member(s, "sanitizer_logs", R"([{"tool": "helgrind", "answered": true, "log": ""}])") < 0);
    GT_CHECK(kwb_bridge_session_set_member(s, "sanitizer_logs", R"({"tool": "memcheck"})") < 0);
    char sanitizer[4096] = {};
    GT_CHECK(kwb_bridge_compute_sanitizer_path(sanitizer, sizeof sanitizer) >= 0);
    GT_CHECK(kwb_bridge_sanitizer_tool_limit_s(60.0) == 600.0 && kwb_bridge_sanitizer_tool_limit_s(0.5) == 10.0);
    GT_CHECK(kwb_bridge_session_set_own_kernels(s, "fused_epilogue\nrelu_kernel\n\n") == 0);
    GT_CHECK(kwb_bridge_session_check(s, "everything", 0, "out", nullptr, reinterpret_cast<const float*>(16), 1, nullptr) < 0);
    GT_CHECK(std::strstr(kwb_bridge_last_error(), "unknown kind 'everything'") != nullptr);
    const int64_t size = kwb_bridge_session_result_size(s);
    GT_CHECK(size > 0);
    std::string text(static_cast<std::size_t>(size > 0 ? size : 1), '\0');
    GT_CHECK(kwb_bridge_session_result_json(s, text.data(), size) > 0);
    GT_CHECK(text.find("\"measured_by\":\"judge\"") != std::string::npos);
    GT_CHECK(text.find("\"violations\":[\"ptrace\"]") != std::string::npos);
    GT_CHECK(text.find("\"isolation\"") != std::string::npos && text.find("\"host_timer\"") != std::string::npos);
    GT_CHECK(text.find("\"errors\":3") != std::string::npos && text.find("\"errors\":-1") != std::string::npos);
    // Errors found before the worker died are kept (the oob_read sample on the H200).
    GT_CHECK(text.find("\"errors\":162434") != std::string::npos);
    GT_CHECK(text.find("\"sanitizer\"") != std::string::npos);
    kwb_bridge_session_destroy(s);
}

int main()
{
    hostChecks();
    abi3Checks();
    int devices = 0;
    const cudaError_t err = cudaGetDeviceCount(&devices);
    if (err != cudaSuccess || devices == 0)
        std::printf("device part skipped: no CUDA device (%s)\n", err != cudaSuccess ? cudaGetErrorName(err) : "none found");
    else
        deviceChecks();
    return kwb::gputest::finish(kTest);
}
