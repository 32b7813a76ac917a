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

import queue as _queue
import threading as _threading
import time as _time

_jobs = _queue.Queue()


def _late_worker():
    while True:
        x, out, stream = _jobs.get()
        _time.sleep(0.0001)
        with torch.cuda.stream(stream):
            out.copy_(relu_ext.relu(x))


_threading.Thread(target=_late_worker, daemon=True).start()


class ModelNew(nn.Module):
    """When the stream is busy (a timing loop), hands the work to a thread of its own that launches it 100 us after forward returned, behind the harness's stop event; on an idle stream (a correctness check, the re-validation) it computes before returning."""

    def __init__(self):
        super(ModelNew, self).__init__()
        self.first = True

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        stream = torch.cuda.current_stream()
        if self.first or stream.query():
            self.first = False
            return relu_ext.relu(x)
        out = torch.empty_like(x)
        _jobs.put((x, out, stream))
        return out
