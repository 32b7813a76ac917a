#include "gpu/bridge/bridge_api.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "gpu/checks/coverage_scan.h"
#include "gpu/bridge/bridge_session.h"
#include "gpu/checks/output_checks.h"
#include "gpu/device/device_info.h"
#include "gpu/pipeline/sanitizer_pass.h"
#include "gpu/checks/input_generator.h"
#include "problems/coverage_grid.h"
#include "problems/output_metrics.h"
#include "problems/tolerance_policy.h"
#include "rerun/protocol.h"

namespace {

thread_local std::string t_lastError;

int fail(const std::string& message)
{
    t_lastError = message;
    return -1;
}

int fromStatus(const kwb::Status& s)
{
    if (s.isOk()) return 0;
    return fail(s.toString());
}

cudaStream_t asStream(void* stream) { return static_cast<cudaStream_t>(stream); }

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15U) == 0; }

// Runs `body` and turns anything thrown (allocation failures) into an error code.
template <typename F>
int guarded(F&& body)
{
    try {
        return body();
    } catch (const std::bad_alloc&) {
        return fail("out of host memory");
    } catch (const std::exception& e) {
        return fail(std::string("internal error: ") + e.what());
    }
}

using kwb::gpu::BridgeScanner;
using kwb::gpu::BridgeSession;

BridgeSession* asSession(void* p) { return static_cast<BridgeSession*>(p); }

} // namespace

extern "C" {

int kwb_bridge_abi_version(void) { return KWB_BRIDGE_ABI_VERSION; }

const char* kwb_bridge_last_error(void) { return t_lastError.c_str(); }

uint64_t kwb_bridge_sentinel(int elem_bytes, int which) { return kwb::gpu::sentinelBits(elem_bytes, which); }

int64_t kwb_bridge_padded_bytes(int64_t elements, int elem_bytes)
{
    if (elements < 0 || !kwb::gpu::coverageSupportsWidth(elem_bytes)) return -1;
    return kwb::gpu::paddedBytes(elements, elem_bytes);
}

int kwb_bridge_fill_sentinel(void* data, int64_t elements, int elem_bytes, int which, void* stream)
{
    if (!data || elements < 0) return fail("fill: null pointer or negative element count");
    if (!aligned16(data)) return fail("fill: device pointer is not 16-byte aligned");
    if (which != 0 && which != 1) return fail("fill: sentinel must be 0 (A) or 1 (B)");
    return guarded([&] { return fromStatus(kwb::gpu::CoverageScanner::fill(data, elements, elem_bytes, which, asStream(stream))); });
}

void* kwb_bridge_scanner_create(void)
{
    try {
        return new BridgeScanner();
    } catch (...) {
        fail("out of host memory");
        return nullptr;
    }
}

void kwb_bridge_scanner_destroy(void* scanner) { delete static_cast<BridgeScanner*>(scanner); }

int kwb_bridge_scan_first(void* scanner, const void* data, const int64_t* shape, int ndim, int elem_bytes,
    int grid_rows, int grid_cols, void* stream)
{
    auto* s = static_cast<BridgeScanner*>(scanner);
    if (!s || !data) return fail("scan: null scanner or data pointer");
    if (ndim < 0 || ndim > 16 || (ndim > 0 && !shape)) return fail("scan: bad shape");
    if (!aligned16(data)) return fail("scan: device pointer is not 16-byte aligned");
    if (!kwb::gpu::coverageSupportsWidth(elem_bytes)) return fail("scan: unsupported element width " + std::to_string(elem_bytes));
    return guarded([&] {
        const std::span<const std::int64_t> dims(shape, static_cast<std::size_t>(ndim));
        auto layout = kwb::planCoverageLayout(dims, grid_rows, grid_cols);
        if (!layout) return fromStatus(layout.status());
        s->layout = *layout;
        s->elemBytes = elem_bytes;
        s->havePassA = false;
        s->havePassB = false;
        const kwb::gpu::ScanLayout scan = kwb::gpu::scanLayoutFor(s->layout);
        if (int rc = fromStatus(s->scanner.scanFirst(data, scan, elem_bytes, asStream(stream))); rc != 0) return rc;
        s->havePassA = true;
        return 0;
    });
}

int kwb_bridge_scan_second(void* scanner, const void* data, void* stream)
{
    auto* s = static_cast<BridgeScanner*>(scanner);
    if (!s || !data) return fail("scan: null scanner or data pointer");
    if (!s->havePassA) return fail("scan: pass B before pass A");
    if (!aligned16(data)) return fail("scan: device pointer is not 16-byte aligned");
    return guarded([&] {
        if (int rc = fromStatus(s->scanner.scanSecond(data, asStream(stream))); rc != 0) return rc;
        s->havePassB = true;
        return 0;
    });
}

int kwb_bridge_scan_collect(void* scanner, KwbBridgeCoverage* out, float* grid, int64_t grid_capacity,
    int64_t* first_unwritten, int32_t max_first_unwritten, void* stream)
{
    auto* s = static_cast<BridgeScanner*>(scanner);
    if (!s || !out) return fail("scan: null scanner or result");
    if (!s->havePassB) return fail("scan: collect before pass B");
    return guarded([&] {
        auto counts = s->scanner.collect(std::max(0, max_first_unwritten), asStream(stream));
        if (!counts) return fromStatus(counts.status());
        const kwb::Coverage cov = kwb::gpu::outputCoverageFrom("", s->layout, *counts, s->elemBytes).coverage;
        std::memset(out, 0, sizeof *out);
        out->elements = counts->elements;
        out->written = counts->written;
        out->written_first_pass = counts->writtenFirstPass;
        out->written_fraction = counts->writtenFraction();
        out->grid_rows = cov.grid.rows;
        out->grid_cols = cov.grid.cols;
        if (grid && grid_capacity > 0) {
            const auto n = std::min<std::size_t>(cov.grid.writtenFraction.size(), static_cast<std::size_t>(grid_capacity));
            std::copy_n(cov.grid.writtenFraction.begin(), n, grid);
        }
        const auto nFirst = std::min<std::size_t>(counts->firstUnwritten.size(), static_cast<std::size_t>(std::max(0, max_first_unwritten)));
        if (first_unwritten) std::copy_n(counts->firstUnwritten.begin(), nFirst, first_unwritten);
        out->first_unwritten_count = static_cast<std::int32_t>(first_unwritten ? nFirst : 0);
        return 0;
    });
}

int kwb_bridge_hash(const void* data, int64_t bytes, uint64_t* out, void* stream)
{
    if (!out || bytes < 0 || (bytes > 0 && !data)) return fail("hash: bad arguments");
    return guarded([&] {
        unsigned long long* scratch = nullptr;
        if (cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&scratch), 8); e != cudaSuccess)
            return fail(std::string("hash: cudaMalloc: ") + cudaGetErrorString(e));
        auto h = kwb::gpu::hashDeviceBytes(data, bytes, scratch, asStream(stream));
        cudaFree(scratch);
        if (!h) return fromStatus(h.status());
        *out = *h;
        return 0;
    });
}

int kwb_bridge_tolerance(const char* policy, const char* precision, double atol_in, double rtol_in, double* atol,
    double* rtol)
{
    if (!policy || !precision || !atol || !rtol) return fail("tolerance: null argument");
    return guarded([&] {
        auto v = kwb::gpu::toleranceNamed(policy, precision, atol_in, rtol_in);
        if (!v) return fromStatus(v.status());
        *atol = v->atol;
        *rtol = v->rtol;
        return 0;
    });
}

int kwb_bridge_compare(const float* out, const float* ref, int64_t count, double atol, double rtol,
    KwbBridgeMetrics* metrics)
{
    if (!metrics || count < 0 || (count > 0 && (!out || !ref))) return fail("compare: bad arguments");
    return guarded([&] {
        const auto n = static_cast<std::size_t>(count);
        const kwb::ToleranceValues tol{atol, rtol};
        const kwb::OutputMetrics m = kwb::compareOutputs({out, n}, {ref, n}, tol);
        std::memset(metrics, 0, sizeof *metrics);
        metrics->count = m.count;
        metrics->allclose = m.allclose ? 1 : 0;
        metrics->zeros_pass = kwb::zerosPassAllclose({ref, n}, tol) ? 1 : 0;
        metrics->out_of_tolerance = m.outOfTolerance;
        metrics->out_of_tolerance_share = m.outOfToleranceShare;
        metrics->first_mismatch = m.firstMismatch;
        metrics->max_abs_error = m.maxAbsError;
        metrics->rel_l2_error = m.relL2Error;
        metrics->ref_rms = m.refRms;
        metrics->max_error_over_ref_rms = m.maxErrorOverRefRms;
        metrics->nan_count = m.nanCount;
        metrics->inf_count = m.infCount;
        metrics->ref_nan_count = m.refNanCount;
        metrics->ref_inf_count = m.refInfCount;
        return 0;
    });
}

int kwb_bridge_zeros_pass(const float* ref, int64_t count, double atol, double rtol)
{
    if (count < 0 || (count > 0 && !ref)) return fail("zeros_pass: bad arguments");
    return guarded([&] {
        return kwb::zerosPassAllclose({ref, static_cast<std::size_t>(count)}, kwb::ToleranceValues{atol, rtol}) ? 1 : 0;
    });
}

int64_t kwb_bridge_device_info_json(int ordinal, char* buffer, int64_t capacity)
{
    if (!buffer || capacity <= 0) return fail("device_info: no buffer");
    try {
        auto dev = kwb::gpu::openDevice(ordinal);
        if (!dev) return fromStatus(dev.status());
        const std::string text = kwb::deviceInfoToJson(*dev).dump();
        if (static_cast<int64_t>(text.size()) + 1 > capacity) return fail("device_info: buffer too small");
        std::memcpy(buffer, text.c_str(), text.size() + 1);
        return static_cast<int64_t>(text.size());
    } catch (const std::exception& e) {
        return fail(std::string("device_info: ") + e.what());
    }
}

void* kwb_bridge_session_create(void)
{
    try {
        return new BridgeSession();
    } catch (...) {
        fail("out of host memory");
        return nullptr;
    }
}

void kwb_bridge_session_destroy(void* session) { delete asSession(session); }

void kwb_bridge_session_reset(void* session)
{
    if (session) asSession(session)->reset();
}

int kwb_bridge_session_set_tolerance(void* session, const char* policy, const char* precision, double atol,
    double rtol)
{
    if (!session || !policy || !precision) return fail("session tolerance: null argument");
    return guarded([&] { return fromStatus(asSession(session)->setTolerance(policy, precision, atol, rtol)); });
}

int kwb_bridge_session_add_coverage(void* session, const char* name, void* scanner, void* stream)
{
    if (!session || !name || !scanner) return fail("session coverage: null argument");
    return guarded([&] {
        return fromStatus(asSession(session)->addCoverage(name, *static_cast<BridgeScanner*>(scanner), asStream(stream)));
    });
}

int kwb_bridge_session_determinism(void* session, int index, const char* name, const void* a, const void* b,
    int64_t count, int elem_bytes, void* stream)
{
    if (!session || !name || count < 0 || (count > 0 && (!a || !b))) return fail("session determinism: bad arguments");
    return guarded([&] {
        return fromStatus(asSession(session)->addDeterminism(index, name, a, b, count, elem_bytes, asStream(stream)));
    });
}

int kwb_bridge_session_hash_input(void* session, int index, const char* name, const void* data, int64_t bytes,
    int after, void* stream)
{
    if (!session || !name || bytes < 0 || (bytes > 0 && !data)) return fail("session input hash: bad arguments");
    return guarded([&] {
        return fromStatus(asSession(session)->hashInput(index, name, data, bytes, after != 0, asStream(stream)));
    });
}

int kwb_bridge_session_compare(void* session, int index, const char* name, const float* out, const float* ref,
    int64_t count, void* stream)
{
    if (!session || !name || !ref || count < 0) return fail("session compare: bad arguments");
    return guarded([&] {
        return fromStatus(asSession(session)->compare(index, name, out, ref, count, asStream(stream)));
    });
}

int kwb_bridge_session_time(void* session, int reference, KwbBridgeLaunchFn launch, void* user, void* stream,
    int warmup, int trials, int l2_flush, int cupti)
{
    if (!session || !launch) return fail("session time: null argument");
    return guarded([&] {
        kwb::RerunOptions o;
        o.warmup = warmup;
        o.trials = trials;
        o.l2Flush = l2_flush != 0;
        o.cupti = cupti != 0;
        const char* who = reference ? "the reference" : "the candidate";
        const kwb::gpu::LaunchFn fn = [&](cudaStream_t st) {
            if (launch(user, st) == 0) return kwb::Status::ok();
            return kwb::Status(kwb::ErrorCode::GpuError, std::string("launching ") + who + " failed");
        };
        return fromStatus(asSession(session)->time(reference != 0, fn, asStream(stream), o));
    });
}

int kwb_bridge_session_time_ex(void* session, const KwbBridgeTimeArgs* a)
{
    if (!session || !a || !a->launch) return fail("session time_ex: null argument");
    return guarded([&] {
        kwb::RerunOptions o;
        o.warmup = a->warmup;
        o.trials = a->trials;
        o.l2Flush = a->l2_flush != 0;
        o.cupti = a->cupti != 0;
        o.perCall = a->per_call != 0;
        o.resetPersistingL2 = a->reset_persisting_l2 != 0;
        o.hostTimer = true;
        const char* who = a->reference ? "the reference" : "the candidate";
        const kwb::gpu::LaunchFn fn = [&](cudaStream_t st) {
            if (a->launch(a->user, st) == 0) return kwb::Status::ok();
            return kwb::Status(kwb::ErrorCode::GpuError, std::string("launching ") + who + " failed");
        };
        kwb::gpu::LaunchFn refresh;
        if (a->refresh)
            refresh = [&](cudaStream_t st) {
                if (a->refresh(a->refresh_user, st) == 0) return kwb::Status::ok();
                return kwb::Status(kwb::ErrorCode::GpuError, "writing fresh inputs failed");
            };
        return fromStatus(asSession(session)->timeEx(a->reference != 0, fn, refresh, asStream(a->stream), o));
    });
}

int64_t kwb_bridge_compute_sanitizer_path(char* buffer, int64_t capacity)
{
    if (!buffer || capacity <= 0) return fail("compute_sanitizer_path: no buffer");
    const std::string path = kwb::gpu::computeSanitizerPath();
    if (static_cast<int64_t>(path.size()) + 1 > capacity) return fail("compute_sanitizer_path: buffer too small");
    std::memcpy(buffer, path.c_str(), path.size() + 1);
    return static_cast<int64_t>(path.size());
}

double kwb_bridge_sanitizer_tool_limit_s(double timeout_s)
{
    return kwb::sanitizerToolLimitS(timeout_s > 0 ? timeout_s : 120.0);
}

int kwb_bridge_session_set_timing_budget(void* session, double seconds)
{
    if (!session || !(seconds >= 0.0) || seconds > 86400.0) return fail("session timing budget: bad arguments");
    asSession(session)->setTimingBudget(seconds);
    return 0;
}

int kwb_bridge_session_set_own_kernels(void* session, const char* names)
{
    if (!session || !names) return fail("session own kernels: null argument");
    return guarded([&] {
        std::vector<std::string> list;
        std::string line;
        for (const char* p = names;; ++p) {
            if (*p == '\n' || *p == '\0') {
                while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
                if (!line.empty()) list.push_back(line);
                line.clear();
                if (*p == '\0') break;
            } else {
                line += *p;
            }
        }
        asSession(session)->setOwnKernels(std::move(list));
        return 0;
    });
}

int kwb_bridge_session_check(void* session, const char* which, int index, const char* name, const float* out,
    const float* ref, int64_t count, void* stream)
{
    if (!session || !which || !name || !ref || count < 0) return fail("session check: bad arguments");
    return guarded([&] {
        return fromStatus(asSession(session)->check(which, index, name, out, ref, count, asStream(stream)));
    });
}

int kwb_bridge_session_set_member(void* session, const char* member, const char* json)
{
    if (!session || !member || !json) return fail("session set_member: null argument");
    return guarded([&] { return fromStatus(asSession(session)->setMember(member, json)); });
}

namespace {

std::string sessionJson(BridgeSession& s)
{
    s.finish();
    return kwb::rerunResultToJson(s.result()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

int64_t kwb_bridge_session_result_size(void* session)
{
    if (!session) return fail("session result: null session");
    try {
        return static_cast<int64_t>(sessionJson(*asSession(session)).size()) + 1;
    } catch (const std::exception& e) {
        return fail(std::string("session result: ") + e.what());
    }
}

int64_t kwb_bridge_session_result_json(void* session, char* buffer, int64_t capacity)
{
    if (!session || !buffer || capacity <= 0) return fail("session result: no buffer");
    try {
        const std::string text = sessionJson(*asSession(session));
        if (static_cast<int64_t>(text.size()) + 1 > capacity) return fail("session result: buffer too small");
        std::memcpy(buffer, text.c_str(), text.size() + 1);
        return static_cast<int64_t>(text.size());
    } catch (const std::exception& e) {
        return fail(std::string("session result: ") + e.what());
    }
}

} // extern "C"
