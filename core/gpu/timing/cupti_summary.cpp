#include "gpu/timing/cupti_summary.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "gpu/timing/kernel_families_embedded.h"
#include "gpu/timing/kernel_timer.h"
#include "traces/rule_table.h"

namespace kwb::gpu {

KernelClassifier::KernelClassifier()
{
    auto table = RuleTable::loadDefault();
    if (table) {
        m_rules = std::make_shared<const RuleTable>(std::move(*table));
        m_source = RuleTable::defaultPath();
        return;
    }
    auto embedded = RuleTable::parse(kEmbeddedKernelFamilies, "built-in kernel_families.json");
    m_source = "built-in copy (" + table.status().toString() + ")";
    if (embedded) m_rules = std::make_shared<const RuleTable>(std::move(*embedded));
}

const KernelClassifier& KernelClassifier::instance()
{
    static const KernelClassifier classifier;
    return classifier;
}

bool KernelClassifier::isLibrary(std::string_view kernelName) const
{
    if (!m_rules) return false;
    const KernelRule* rule = m_rules->match(kernelName, ActivityKind::Kernel);
    return rule && !rule->addressable;
}

CuptiSummary summarizeCupti(const std::vector<TracedKernel>& kernels, const std::vector<TracedMemOp>& memOps,
    std::uint32_t timedStream, std::uint64_t dropped)
{
    const KernelClassifier& classify = KernelClassifier::instance();
    CuptiSummary s;
    s.available = true;
    s.timedStreamId = timedStream;
    std::map<std::pair<std::string, std::uint32_t>, KernelActivity> byName;
    std::set<std::uint32_t> streams;
    for (const auto& k : kernels) {
        if (isInternalKernelName(k.name.c_str())) continue;
        const double ms = static_cast<double>(k.endNs - k.startNs) / 1e6;
        ++s.kernelCount;
        if (k.streamId == timedStream) {
            ++s.timedStreamKernels;
            s.kernelMs += ms;
        } else {
            ++s.otherStreamKernels;
            s.otherStreamMs += ms;
        }
        streams.insert(k.streamId);
        auto& a = byName[{k.name, k.streamId}];
        if (a.count == 0) {
            a.name = demangleKernelName(k.name);
            a.streamId = k.streamId;
            a.library = classify.isLibrary(a.name) || classify.isLibrary(k.name);
        }
        ++a.count;
        a.totalMs += ms;
    }
    for (const auto& m : memOps) {
        if (m.memset) ++s.memsetCount;
        else ++s.memcpyCount;
        if (m.streamId == timedStream && m.endNs > m.startNs)
            s.memOpMs += static_cast<double>(m.endNs - m.startNs) / 1e6;
        streams.insert(m.streamId);
    }
    s.streams.assign(streams.begin(), streams.end());
    for (auto& [key, a] : byName) s.kernels.push_back(std::move(a));
    std::sort(s.kernels.begin(), s.kernels.end(),
        [](const KernelActivity& a, const KernelActivity& b) { return a.totalMs > b.totalMs; });
    if (dropped) s.note = "CUPTI dropped " + std::to_string(dropped) + " records";
    return s;
}

} // namespace kwb::gpu
