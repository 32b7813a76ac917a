#pragma once
// The CUPTI window of a timed run as the protocol's CuptiSummary: kernels
// aggregated per name and stream, the timed stream's kernel time against
// every other stream's, memcpy/memset counts. Library kernels are those the
// kernel-family rule table (resources/kernel_families.json, or the file named
// by KWB_KERNEL_FAMILIES) assigns to a non-addressable family: vendor
// libraries such as cuBLAS, cuDNN, CUTLASS, CUB, NCCL. The same table drives
// `kwb breakdown`, so a kernel is a library kernel in one place only.
//
// Thread: any; the rule table is loaded once and is immutable afterwards.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/timing/cupti_tracer.h"
#include "rerun/rerun_types.h"

namespace kwb {
class RuleTable;
}

namespace kwb::gpu {

class KernelClassifier {
public:
    // The default rule table (RuleTable::loadDefault); when it cannot be
    // read, the copy of resources/kernel_families.json built into the binary.
    static const KernelClassifier& instance();

    bool isLibrary(std::string_view kernelName) const;
    // Where the rules came from (a path, or "built-in copy: <why the file was not used>").
    const std::string& source() const { return m_source; }

private:
    KernelClassifier();
    std::shared_ptr<const RuleTable> m_rules;
    std::string m_source;
};

// Internal kernels (gpu/timing/kernel_timer.h isInternalKernelName) are left out.
CuptiSummary summarizeCupti(const std::vector<TracedKernel>& kernels, const std::vector<TracedMemOp>& memOps,
    std::uint32_t timedStream, std::uint64_t droppedRecords);

} // namespace kwb::gpu
