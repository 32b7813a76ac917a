#pragma once
// What the timer does when a batch gate gives up waiting for the host
// (gpu/timing/kernel_timer.h). The gate holds the stream until the host has
// enqueued the whole batch; it gives up when the host cannot do that within
// its timeout, which happens for two reasons that need different answers:
// - the candidate's call waits for the GPU (a synchronize, a copy to the
//   host): the GPU waits for the gate, so no gate can ever hold it; stop gating;
// - the launch queue fills: CUDA holds about 1,000 pending launches on a
//   stream, and ten calls of a network that launches 100+ kernels each are
//   more (the leaderboard's level-3 records on the H200: every one with 100 or
//   more launches a call ran ungated, every gated one had at most 93); the
//   host then blocks inside a launch part-way through the batch, so a batch of
//   the trials that fitted keeps the queue below that.
// A host that was merely slow (no enqueue blocked) gets half the batch.
// Pure: no CUDA.

namespace kwb {

struct GateDecision {
    bool keepGating = false;
    int nextBatch = 1; // trials per batch from the next batch on (when keepGating)
};

// `batch`: the failed batch's size; `blockedAt`: the index within it of the
// first trial whose enqueueing blocked (took longer than half the gate's
// timeout), -1 when none did.
GateDecision afterGateGaveUp(int batch, int blockedAt);

// The last trial of the batch that starts at `start` with `batch` trials
// asked for: never past `trials - 1`, nor across a multiple of `alignment`
// (the full batches' ends, where the outputs of checked trials are set aside
// (rerun/trial_plan.h checkedTrials), stay batch ends).
int batchLastTrial(int start, int batch, int trials, int alignment);

} // namespace kwb
