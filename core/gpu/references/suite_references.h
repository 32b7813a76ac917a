#pragma once
// Reference implementations for the problem suite in datasets/problems/ that
// the generic row-wise references (reference_kernels.h) do not cover:
// KernelBench reductions and norms over a middle dimension or a whole tensor,
// a depthwise convolution, LayerNorm over very wide rows, and the DLRM-style
// recommender operators. Simple, obviously correct float32 kernels with
// float64 accumulation; inputs and outputs by position, as RefInput/RefOutput
// (integer inputs such as embedding indices arrive converted to float, exact
// below 2^24).
//
// Contracts (dim = param "dim", default 1; x viewed as [A, R, B] with
// A = prod(shape[:dim]), R = shape[dim], B = prod(shape[dim+1:])):
//   sum_dim(x) -> out [A, B]            sum over dim
//   min_dim(x) -> out [A, B]            min over dim
//   rmsnorm_dim(x) -> out               x / sqrt(mean(x^2 over dim) + eps)   (param eps, 1e-5)
//   frobenius_normalize(x) -> out       x / sqrt(sum of all x^2)
//   layernorm_wide(x) -> out            layernorm_rows for few, very wide rows: each row split
//                                       over many blocks (param eps, 1e-5; no affine)
//   depthwise_conv2d(x [N,C,H,W], w [C,1,K,K]) -> out [N,C,Ho,Wo]   (params stride 1, padding 0)
//   embedding_bag_sum(table [R,D], idx [B,L]) -> out [B,D]
//   embedding_bag_mean(table [R,D], idx [B,L]) -> out [B,D]
//   embedding_bag_weighted_sum(table [R,D], idx [B,L], w [B,L]) -> out [B,D]
//   embedding_bag_multi_sum(tables [T*R,D], idx [T,B,L]) -> out [B,T*D]   (table t's row i is t*R + i)
//   dot_interaction(x [B,F,D]) -> out [B, F*(F-1)/2]   <x_i, x_j> for i > j, ordered by i then j
//                                       (DLRM's tril_indices(F, F, offset=-1))
//   linear_bias_relu(x [M,K], w [N,K], b [N]) -> out [M,N]   relu(x @ w^T + b), cuBLAS SGEMM (no TF32)
// An index outside the table yields NaN in that bag's output, never a fault.
//
// Thread: executor thread; work is enqueued on `stream`.
#include <cuda_runtime_api.h>

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "gpu/references/reference_kernels.h"

namespace kwb::gpu {

const std::vector<std::string>& suiteReferenceNames();
bool isSuiteReference(const std::string& name);

Status runSuiteReference(const std::string& name, const std::map<std::string, double>& params,
    const std::vector<RefInput>& inputs, const std::vector<RefOutput>& outputs, cudaStream_t stream);

} // namespace kwb::gpu
