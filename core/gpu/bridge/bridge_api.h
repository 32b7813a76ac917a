#pragma once
// libkwb_bridge.so: a C ABI over the core's check pipeline, for the PyTorch bridge (app/runner/bridge/kwb_torch_bridge.py,
// which loads it with ctypes). Callers pass raw device pointers (a tensor's
// data_ptr()) and raw stream handles (torch.cuda.current_stream().cuda_stream).
//
// Conventions: every function that can fail returns 0 on success and a
// negative value on failure; kwb_bridge_last_error() then gives the reason
// (thread-local; valid until the next call on that thread). No exception
// leaves the library. Device pointers must be 16-byte aligned; ranges handed
// to the fill and the scan must hold kwb_bridge_padded_bytes() bytes (the
// CUDA caching allocator's blocks are 512-byte multiples, which suffices when
// the tensor starts its block; otherwise copy into a padded buffer first).
//
// Thread: a scanner handle is used by one thread at a time; all work is
// enqueued on the given stream.
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KWB_BRIDGE_ABI_VERSION 3

int kwb_bridge_abi_version(void);
const char* kwb_bridge_last_error(void);

// Sentinel bit pattern `which` (0 = A, 1 = B) for elements of `elem_bytes` (2, 4, 8).
uint64_t kwb_bridge_sentinel(int elem_bytes, int which);
// Bytes the fill and the scan touch for `elements` elements.
int64_t kwb_bridge_padded_bytes(int64_t elements, int elem_bytes);
// Fills `elements` elements (and the padding after them) with sentinel `which`.
int kwb_bridge_fill_sentinel(void* data, int64_t elements, int elem_bytes, int which, void* stream);

// The two-pass coverage scan. An element is written when it differs from
// sentinel A after run A and from sentinel B after run B.
typedef struct KwbBridgeCoverage {
    int64_t elements;
    int64_t written;
    int64_t written_first_pass;
    double written_fraction;
    int32_t grid_rows;
    int32_t grid_cols;
    int32_t first_unwritten_count;
    int32_t reserved;
} KwbBridgeCoverage;

void* kwb_bridge_scanner_create(void);
void kwb_bridge_scanner_destroy(void* scanner);
// Pass A over an output of `ndim` extents `shape` (the grid is planned as
// core/problems/coverage_grid.h does: rank >= 2 as a matrix, else flat).
int kwb_bridge_scan_first(void* scanner, const void* data, const int64_t* shape, int ndim, int elem_bytes,
    int grid_rows, int grid_cols, void* stream);
// Pass B over the output of the second run (same shape and width).
int kwb_bridge_scan_second(void* scanner, const void* data, void* stream);
// Waits for the stream and reports counts, the grid of written fractions
// (row-major, at most `grid_capacity` values written) and the first
// unwritten flat indices (at most `max_first_unwritten`).
int kwb_bridge_scan_collect(void* scanner, KwbBridgeCoverage* out, float* grid, int64_t grid_capacity,
    int64_t* first_unwritten, int32_t max_first_unwritten, void* stream);

// Order-dependent 64-bit content hash of `bytes` device bytes (synchronises `stream`).
int kwb_bridge_hash(const void* data, int64_t bytes, uint64_t* out, void* stream);

// Tolerance of a policy ("kernelbench", "kernelbench_legacy", "explicit") for
// a precision ("float32", "fp16", ...); explicit uses atol_in / rtol_in.
int kwb_bridge_tolerance(const char* policy, const char* precision, double atol_in, double rtol_in, double* atol,
    double* rtol);

// Host-side comparison of float32 arrays (core/problems/output_metrics.h).
typedef struct KwbBridgeMetrics {
    int64_t count;
    int32_t allclose;
    int32_t zeros_pass;
    int64_t out_of_tolerance;
    double out_of_tolerance_share;
    int64_t first_mismatch;
    double max_abs_error;
    double rel_l2_error;
    double ref_rms;
    double max_error_over_ref_rms;
    int64_t nan_count;
    int64_t inf_count;
    int64_t ref_nan_count;
    int64_t ref_inf_count;
} KwbBridgeMetrics;

int kwb_bridge_compare(const float* out, const float* ref, int64_t count, double atol, double rtol,
    KwbBridgeMetrics* metrics);
// 1 when all zeros would pass allclose against `ref`, 0 when not, < 0 on error.
int kwb_bridge_zeros_pass(const float* ref, int64_t count, double atol, double rtol);

// Device `ordinal` described as the protocol's "device" object (JSON text,
// NUL-terminated). Returns the length, or < 0 on error (also when `capacity` is too small).
int64_t kwb_bridge_device_info_json(int ordinal, char* buffer, int64_t capacity);

// ---- The check session (gpu/bridge/bridge_session.h): the bridge's Python
// supplies calls of the candidate and the reference and their tensors; the
// verdict's every measurement and its encoding are the core's.

void* kwb_bridge_session_create(void);
void kwb_bridge_session_destroy(void* session);
// Starts a request: forgets the previous request's checks.
void kwb_bridge_session_reset(void* session);
// Tolerance (as kwb_bridge_tolerance) for the correctness trials that follow.
int kwb_bridge_session_set_tolerance(void* session, const char* policy, const char* precision, double atol,
    double rtol);
// Coverage of output `name` from a scanner after both passes (replaces kwb_bridge_scan_collect).
int kwb_bridge_session_add_coverage(void* session, const char* name, void* scanner, void* stream);
// Determinism of output `index`: of the elements both coverage runs wrote
// (`a` after run A, `b` after run B), how many differ.
int kwb_bridge_session_determinism(void* session, int index, const char* name, const void* a, const void* b,
    int64_t count, int elem_bytes, void* stream);
// Input `index`'s device bytes hashed before (`after` = 0) or after (1) the
// candidate's call of one trial; a mutation shows in the result's inputs.
int kwb_bridge_session_hash_input(void* session, int index, const char* name, const void* data, int64_t bytes,
    int after, void* stream);
// One correctness trial of output `index`: float32 device arrays `out` and
// `ref` of `count` elements (`out` NULL: the output has the wrong shape).
// Metrics, zero acceptance and the worst trial are computed on the device.
int kwb_bridge_session_compare(void* session, int index, const char* name, const float* out, const float* ref,
    int64_t count, void* stream);

// One launch of the candidate or the reference on `stream`; 0 on success.
typedef int (*KwbBridgeLaunchFn)(void* user, void* stream);
// Times `launch` (reference = 0: the candidate) the way the executor times:
// warm-up, L2 flush, gated CUDA events with the calibrated bracket, core's
// statistics, and (cupti != 0) the CUPTI window over the timed trials with
// library kernels by the rule table. A launch that returns non-zero ends the
// timing with an error.
int kwb_bridge_session_time(void* session, int reference, KwbBridgeLaunchFn launch, void* user, void* stream,
    int warmup, int trials, int l2_flush, int cupti);
// The session's checks as the protocol encodes a result (JSON text,
// NUL-terminated): coverage, outputs, inputs, tolerance, timings, speedup and
// CUPTI summaries. Returns the length, or < 0 on error (also when `capacity`
// is too small; kwb_bridge_session_result_size() gives the size needed).
int64_t kwb_bridge_session_result_json(void* session, char* buffer, int64_t capacity);
int64_t kwb_bridge_session_result_size(void* session);

// ---- ABI 3 (issue 12): fresh inputs, the persisting-L2 reset, the host
// timer, the per-call mode, own kernels, more comparisons, members measured
// elsewhere, and the sandbox (implemented in core/sandbox).

typedef struct KwbBridgeTimeArgs {
    int reference;                 // 0: the candidate
    KwbBridgeLaunchFn launch;
    void* user;
    KwbBridgeLaunchFn refresh;     // may be NULL: called on the host before each trial, outside the timed region, to write fresh input contents on the stream
    void* refresh_user;
    void* stream;
    int warmup;
    int trials;
    int l2_flush;
    int cupti;
    int per_call;                  // also time each call alone (synchronised); check its outputs with kwb_bridge_session_check("per_call", ...)
    int reset_persisting_l2;
} KwbBridgeTimeArgs;
// Fills candidate/reference timing, CUPTI, host_timing (measured_by "runner") and per_call_timing.
int kwb_bridge_session_time_ex(void* session, const KwbBridgeTimeArgs* args);
// The sample's own __global__ names, one per line: CUPTI then fills own_kernels.
int kwb_bridge_session_set_own_kernels(void* session, const char* names_newline_separated);
// One more comparison, folded into `which`: "post_timing" | "fresh_inputs" | "per_call" | "adversarial:<set>".
int kwb_bridge_session_check(void* session, const char* which, int index, const char* name, const float* out,
    const float* ref, int64_t count, void* stream);
// Strict-decodes a member measured elsewhere (e.g. the worker's timing,
// host_timing by the judge, isolation) into the session's result; rejects what the decoder rejects.
int kwb_bridge_session_set_member(void* session, const char* member, const char* json);
// Until the next reset: each timed kernel's warm-ups and trials cut to fit `seconds`
// (at least min(10, trials) trials; 0 turns it off). An addition within ABI 3.
int kwb_bridge_session_set_timing_budget(void* session, double seconds);
// Implemented by core/sandbox: 0 = entered, 1 = not available here (why_not says why), < 0 = error.
int kwb_bridge_sandbox_enter(const char* writable_dirs_colon_separated, char* why_not, int capacity);
// The compute-sanitizer pass for samples (additions within ABI 3): the tool's
// path as core finds it (NUL-terminated; returns its length, 0 when not found,
// -1 when `capacity` is too small) and one tool's time limit for a candidate
// limit of `timeout_s` seconds (rerun/rerun_types.h sanitizerToolLimitS).
int64_t kwb_bridge_compute_sanitizer_path(char* buffer, int64_t capacity);
double kwb_bridge_sanitizer_tool_limit_s(double timeout_s);

#ifdef __cplusplus
}
#endif

// ---- Zero acceptance (kwb zeros; gpu/bridge/zero_probe).
#ifdef __cplusplus
extern "C" {
#endif
// Zero acceptance of one reference output: `data` a float32 device array of
// `count` elements (the bridge converts other dtypes first) of shape
// shape[0..ndim), `dtype` the tensor's own dtype name. Core's check decides
// whether all zeros and the constant mean pass allclose at 1e-2 and 1e-4.
// Writes the output's statistics as JSON (NUL-terminated) into `buffer` and
// returns its length; on failure returns -1 with the reason in `buffer`, and
// -2 when `capacity` is too small (4096 bytes always suffice).
int64_t kwb_zero_probe_output(const float* data, int64_t count, const int64_t* shape, int ndim, const char* dtype,
    void* stream, char* buffer, int64_t capacity);
#ifdef __cplusplus
}
#endif
