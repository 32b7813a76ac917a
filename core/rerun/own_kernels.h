#pragma once
// The candidate's own kernels in a CUPTI window (issue 12, decoy kernels):
// which of the kernels that ran are the candidate's, which a vendor library's
// (the rule table's non-addressable families, KernelActivity::library) and
// which a framework's (PyTorch's ATen/c10, Triton's helpers). A candidate
// that declares kernels (NVRTC entry points, a KernelBench sample's
// __global__ names) owns those; one that declares none (a shared object) owns
// every kernel that is neither library nor framework. Pure: no CUDA, no JSON.
#include <string>
#include <string_view>
#include <vector>

#include "rerun/rerun_types.h"

namespace kwb {

// True when a (mangled or demangled) kernel name is that of `declared`:
// "relu", "void relu(float*, ...)", "_Z4reluPfS_l", "ns::relu<float>(...)".
bool kernelNameMatches(std::string_view kernelName, std::string_view declared);
// PyTorch / c10 / Triton runtime kernels (not the candidate's, not a vendor library's).
bool isFrameworkKernelName(std::string_view kernelName);

// Over every kernel of every stream in `cupti` (internal kernels are already left out there).
OwnKernels ownKernelsFrom(const CuptiSummary& cupti, const std::vector<std::string>& declared);
// The GPU time of `declared`'s kernels (the same rule as ownKernelsFrom) on the timed stream only.
double ownTimedStreamMs(const CuptiSummary& cupti, const std::vector<std::string>& declared);

} // namespace kwb
