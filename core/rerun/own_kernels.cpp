#include "rerun/own_kernels.h"

#include <algorithm>
#include <cctype>

namespace kwb {

namespace {

bool identChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

} // namespace

bool kernelNameMatches(std::string_view name, std::string_view declared)
{
    if (declared.empty()) return false;
    // Demangled: the identifier `declared` not glued to other identifier characters
    // and followed by '(', '<', end or a space ("void relu(float*)", "ns::relu<float>").
    for (std::size_t pos = name.find(declared); pos != std::string_view::npos; pos = name.find(declared, pos + 1)) {
        const std::size_t end = pos + declared.size();
        const bool startOk = pos == 0 || !identChar(name[pos - 1]) || (pos >= 1 && name[pos - 1] == ':');
        const bool endOk = end == name.size() || name[end] == '(' || name[end] == '<' || name[end] == ' ';
        if (startOk && endOk) return true;
    }
    // Itanium-mangled: <length><identifier> ("_Z4reluPfS_l", "_ZN2ns4reluIfEEvPf").
    const std::string mangled = std::to_string(declared.size()) + std::string(declared);
    const std::size_t m = name.find(mangled);
    // The length prefix bounds the identifier; a digit before it would make it a longer length.
    if (name.substr(0, 2) == "_Z" && m != std::string_view::npos)
        return m >= 2 && !std::isdigit(static_cast<unsigned char>(name[m - 1]));
    return false;
}

bool isFrameworkKernelName(std::string_view n)
{
    for (std::string_view p : {"at::", "c10::", "_ZN2at", "_ZN3c10", "triton_", "at_cuda_detail", "pytorch"})
        if (n.find(p) != std::string_view::npos) return true;
    return false;
}

namespace {

bool isOwn(const KernelActivity& k, const std::vector<std::string>& declared)
{
    if (declared.empty()) return !k.library && !isFrameworkKernelName(k.name);
    return std::any_of(declared.begin(), declared.end(), [&](const std::string& d) { return kernelNameMatches(k.name, d); });
}

} // namespace

OwnKernels ownKernelsFrom(const CuptiSummary& cupti, const std::vector<std::string>& declared)
{
    OwnKernels o;
    o.declared = declared;
    for (const auto& k : cupti.kernels) {
        o.totalMs += k.totalMs;
        if (isOwn(k, declared)) {
            o.ownMs += k.totalMs;
            if (std::find(o.launched.begin(), o.launched.end(), k.name) == o.launched.end()) o.launched.push_back(k.name);
        } else if (k.library) {
            o.libraryMs += k.totalMs;
        } else {
            o.frameworkMs += k.totalMs;
        }
    }
    o.share = o.totalMs > 0 ? o.ownMs / o.totalMs : 0.0;
    return o;
}

double ownTimedStreamMs(const CuptiSummary& cupti, const std::vector<std::string>& declared)
{
    double ms = 0.0;
    for (const auto& k : cupti.kernels)
        if (k.streamId == cupti.timedStreamId && isOwn(k, declared)) ms += k.totalMs;
    return ms;
}

} // namespace kwb
