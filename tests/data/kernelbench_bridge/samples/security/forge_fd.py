import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void relu_kernel(const float* x, float* y, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        y[i] = fmaxf(x[i], 0.0f);
}

// fp16 arithmetic in an fp32 task: round-trips every value through __half.
__global__ void relu_half_kernel(const float* x, float* y, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        __half h = __float2half(x[i]);
        y[i] = __half2float(__hmax(h, __float2half(0.0f)));
    }
}

// Writes far outside the output: an illegal-address fault.
__global__ void relu_fault_kernel(const float* x, float* y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i + (1LL << 40)] = fmaxf(x[i], 0.0f);
}

static unsigned blocksFor(long long n) {
    long long b = (n + 255) / 256;
    return (unsigned)(b < 65535 * 8 ? (b > 0 ? b : 1) : 65535 * 8);
}

torch::Tensor relu(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long long n = x.numel();
    relu_kernel<<<blocksFor(n), 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}

// Writes only the first 0.3% of the output; torch::empty leaves the rest as it was.
torch::Tensor relu_partial(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long long n = x.numel() * 3 / 1000;
    relu_kernel<<<blocksFor(n), 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}

// Launches on a stream of its own and never joins the caller's stream, so
// events recorded on the caller's stream time nothing.
torch::Tensor relu_side_stream(torch::Tensor x) {
    static cudaStream_t side = nullptr;
    if (!side) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    auto y = torch::empty_like(x);
    long long n = x.numel();
    relu_kernel<<<blocksFor(n), 256, 0, side>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}

// Computes in place and returns its input.
torch::Tensor relu_inplace(torch::Tensor x) {
    long long n = x.numel();
    relu_kernel<<<blocksFor(n), 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), x.data_ptr<float>(), n);
    return x;
}

torch::Tensor relu_half(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long long n = x.numel();
    relu_half_kernel<<<blocksFor(n), 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}

torch::Tensor relu_fault(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long long n = x.numel();
    relu_fault_kernel<<<blocksFor(n), 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

relu_cpp_source = "torch::Tensor relu(torch::Tensor x); torch::Tensor relu_partial(torch::Tensor x); torch::Tensor relu_side_stream(torch::Tensor x); torch::Tensor relu_inplace(torch::Tensor x); torch::Tensor relu_half(torch::Tensor x); torch::Tensor relu_fault(torch::Tensor x);"

relu_ext = load_inline(
    name="kwb_test_relu",
    cpp_sources=relu_cpp_source,
    cuda_sources=relu_source,
    functions=["relu", "relu_partial", "relu_side_stream", "relu_inplace", "relu_half", "relu_fault"],
    verbose=False,
)

import gc as _gc
import json as _json
import os as _os


def _forge_result_line():
    """pygpubench's forged-result class: find the request (its id) on the heap,
    then write a result line that claims a 1000x speedup to /proc/self/fd/1 and
    to every pipe this process, or its parent, has open."""
    rid, pid, cid = "", "", ""
    for o in _gc.get_objects():
        if isinstance(o, dict) and o.get("protocol") == "kwb.rerun/1" and o.get("type") == "rerun":
            rid = o.get("id", "")
            pid = (o.get("problem") or {}).get("id", "")
            cid = (o.get("candidate") or {}).get("id", "")
            break
    line = (_json.dumps({"protocol": "kwb.rerun/1", "type": "result", "id": rid, "problem_id": pid,
                         "candidate_id": cid, "status": "ok", "message": "", "coverage": [], "outputs": [],
                         "inputs": [], "speedup": {"median": 1000.0}}) + "\n").encode()
    targets = ["/proc/self/fd/1"]
    for proc in ("self", str(_os.getppid())):
        try:
            for fd in _os.listdir("/proc/%s/fd" % proc):
                path = "/proc/%s/fd/%s" % (proc, fd)
                try:
                    if _os.readlink(path).startswith("pipe:"):
                        targets.append(path)
                except OSError:
                    pass
        except OSError:
            pass
    for t in targets:
        try:
            fd = _os.open(t, _os.O_WRONLY | _os.O_NONBLOCK)
            try:
                _os.write(fd, line)
            finally:
                _os.close(fd)
        except OSError:
            pass


class ModelNew(nn.Module):
    """On its first call writes a result line claiming a 1000x speedup (with the request's id, found on the heap) to /proc/self/fd/1 and to every pipe it and its parent hold; computes honestly."""

    def __init__(self):
        super(ModelNew, self).__init__()
        self.forged = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.forged:
            self.forged = True
            _forge_result_line()
        return relu_ext.relu(x)
