#pragma once
// The project's own reference kernels: simple, obviously correct float32
// implementations with float64 accumulation where sums are involved. Inputs
// and outputs are float32 device buffers (other dtypes are converted before
// and after). Row-wise operations treat a tensor as [prod(leading), last dim].
//
// Contracts (inputs, outputs by position; docs/formats.md lists them too):
//   vector_add(a, b) -> out          a + b
//   vector_mul(a, b) -> out          a * b
//   relu(x) -> out                   max(x, 0)
//   leaky_relu(x) -> out             x >= 0 ? x : negative_slope * x   (param negative_slope, 0.01)
//   scale(x) -> out                  alpha * x                         (param alpha, 1)
//   gelu(x) -> out                   x * Phi(x) (erf form, torch default)
//   sigmoid(x) -> out, tanh(x) -> out
//   softmax_rows(x) -> out, log_softmax_rows(x) -> out
//   layernorm_rows(x) -> out         (x - mean) / sqrt(var + eps), biased var (param eps, 1e-5)
//   rmsnorm_rows(x) -> out           x / sqrt(mean(x^2) + eps)          (param eps, 1e-5)
//   l2norm_rows(x) -> out            x / ||x||_2
//   sum_rows, mean_rows, max_rows, min_rows (x [R, C]) -> out [R]
//   cumsum_rows(x) -> out            inclusive prefix sum along the last dim
//   mse(a, b) -> out [1]             mean((a - b)^2)
// gemm lives in cublas_reference.h.
//
// Thread: executor thread; work is enqueued on `stream`.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace kwb::gpu {

struct RefInput {
    const float* data = nullptr;
    std::vector<std::int64_t> shape;
};

struct RefOutput {
    float* data = nullptr;
    std::vector<std::int64_t> shape;
};

// Names of the references implemented here (gemm not included).
const std::vector<std::string>& ownReferenceNames();
bool isOwnReference(const std::string& name);

// diag_matmul's reference builds the dense N x N matrix diag(a) (as
// KernelBench's Model does with torch.diag) for a cuBLAS GEMM.
Status expandDiagonal(const float* a, std::int64_t n, float* out, cudaStream_t stream);

Status runOwnReference(const std::string& name, const std::map<std::string, double>& params,
    const std::vector<RefInput>& inputs, const std::vector<RefOutput>& outputs, cudaStream_t stream);

} // namespace kwb::gpu
