#pragma once
// TEST ONLY. An in-process Executor that simulates a GPU re-run without a GPU:
// it computes the problem's reference and the "candidate" on the host for the
// few built-ins the fixtures use, and acts out failure modes chosen by the
// candidate id (crash, hang, garbage on the protocol channel, fatal error).
// Never linked into kwb or kwb-runner.
#include "rerun/executor.h"

namespace kwbtest {

class SimulatedExecutor final : public kwb::Executor {
public:
    // `protocolFd`: where "garbage" candidates scribble non-protocol lines (-1: nowhere).
    explicit SimulatedExecutor(bool devicePresent = true, int protocolFd = -1)
        : m_devicePresent(devicePresent), m_protocolFd(protocolFd) {}

    kwb::Result<kwb::Capabilities> capabilities() override;
    // Behaviour by candidate id substring:
    //   "crash"   abort() (SIGABRT), "segv" raise SIGSEGV, "hang" sleep forever,
    //   "garbage" write stray lines to the protocol fd, then answer,
    //   "fatal"   answer with status fault and fatal = true,
    //   "slow"    sleep 300 ms before answering,
    //   "zeros" / "partial" / "mutate" / "side" / "half": a result that shows that exploit,
    //   "partial_last": only the last output partially written,
    //   anything else: an honest, correct result.
    kwb::Result<kwb::RerunResult> execute(const kwb::RerunRequest& request, const kwb::TaskContext& ctx) override;

    int calls() const { return m_calls; }

private:
    bool m_devicePresent;
    int m_protocolFd;
    int m_calls = 0;
};

} // namespace kwbtest
