#pragma once
// The executor's check pipeline as named steps over a RunContext, in the
// order serveRun() runs them:
//
//   prepareStep      sizes, tolerance, tensors, roofline floor (no GPU work)
//   compileStep      NVRTC module or nvcc shared object, from the caches
//   allocateStep     device buffers (outputs padded for the scan, fp32 copies, references)
//   inputsStep       fresh input contents for a trial (called by the steps below)
//   coverageStep     sentinel A run + scan, sentinel B run + scan
//   correctnessStep  trials on fresh inputs against the reference: metrics,
//                    zero acceptance, input hashes, a determinism re-run
//   timingStep       candidate and reference timed (timing/timed_run.h), fresh
//                    input contents per timed trial from the run's nonce, every
//                    k-th trial's output checked; the host timer; own kernels;
//                    post_timing re-validation; the optional per-call mode
//
// Contract of every step: Ok with ctx.stopped false means "go on"; Ok with
// ctx.stopped true means the candidate failed and ctx.result says how (status,
// message, fatal); an error Status is the runner's own failure (or an invalid
// request, or cancellation). Steps after prepareStep need the ones before.
#include <cstdint>

#include "gpu/checks/input_generator.h"
#include "gpu/pipeline/run_context.h"

namespace kwb::gpu {

Status prepareStep(RunContext& ctx);
Status compileStep(RunContext& ctx);
Status allocateStep(RunContext& ctx);
// Seeds of `trial` (0 = the coverage runs; 1.. = correctness trials).
Status inputsStep(RunContext& ctx, std::uint64_t trial);
// Inputs of timed trial `trial` (or per-call call), seeded from ctx.nonce, enqueued on `stream`.
Status timedInputsStep(RunContext& ctx, std::uint64_t trial, cudaStream_t stream);
// What timedInputsStep draws from, for a candidate host that draws the same
// contents in its own loop: input `in`'s distribution (seed 0), and the base
// seed (fixed: every trial draws trial 0's seeds).
struct TimedSeeds {
    std::uint64_t base = 0;
    bool fixed = false;
};
TimedSeeds timedSeeds(const RunContext& ctx);
GenParams inputParamsOf(const Tensor& in);
// The reference on the current inputs, then each output of the candidate (its
// current contents, or `snapshots[i]` when given) compared with it; the
// reference buffers are cleared afterwards so no expected output lingers.
Result<std::vector<OutputMetrics>> compareWithReference(RunContext& ctx, const std::vector<const void*>& snapshots);
Status coverageStep(RunContext& ctx);
Status correctnessStep(RunContext& ctx);
Status timingStep(RunContext& ctx);
// Optional (options.adversarial): the adversarial value sets of
// gpu/checks/adversarial_inputs.h against the reference, and three bitwise runs.
Status adversarialStep(RunContext& ctx);

// Every step in order, with the executor's failure classification.
Status serveRun(RunContext& ctx);

// Pieces the steps share (exposed for tests): one launch of the candidate or
// the reference on `stream`; a checked candidate run (launch, device-wide
// synchronise, failures recorded in ctx.result).
Status launchCandidate(RunContext& ctx, cudaStream_t stream);
Status runReference(RunContext& ctx, cudaStream_t stream);
Status runCandidateChecked(RunContext& ctx);

// Records a candidate failure in ctx.result (OOM and lost contexts are fatal)
// and stops the run; returns Ok except for cancellation.
Status recordFailure(RunContext& ctx, const Status& status, RerunStatus hint);

} // namespace kwb::gpu
