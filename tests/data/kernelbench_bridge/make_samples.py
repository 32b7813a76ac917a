#!/usr/bin/env python3
"""Writes the KernelBench-format samples of the PyTorch bridge tests
(samples/*.py) and their expectations (manifest.json).

Every ReLU sample carries the same load_inline source, one extension with an
honest kernel and one variant per exploit class, so a batch builds it once
(the bridge caches extensions by source hash) and each sample differs only in
which function its ModelNew calls. Run from this folder: python3 make_samples.py
"""
import json
import os

RELU_CUDA = r'''
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
'''

RELU_CPP = ("torch::Tensor relu(torch::Tensor x); torch::Tensor relu_partial(torch::Tensor x); "
            "torch::Tensor relu_side_stream(torch::Tensor x); torch::Tensor relu_inplace(torch::Tensor x); "
            "torch::Tensor relu_half(torch::Tensor x); torch::Tensor relu_fault(torch::Tensor x);")

RELU_HEADER = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = r"""%s"""

relu_cpp_source = "%s"

relu_ext = load_inline(
    name="kwb_test_relu",
    cpp_sources=relu_cpp_source,
    cuda_sources=relu_source,
    functions=["relu", "relu_partial", "relu_side_stream", "relu_inplace", "relu_half", "relu_fault"],
    verbose=False,
)
''' % (RELU_CUDA, RELU_CPP)

SOFTMAX_CUDA = r'''
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

// One block per row: max, then sum of exponentials, then the quotient.
__global__ void softmax_rows(const float* x, float* y, int cols) {
    extern __shared__ float red[];
    const float* row = x + (long long)blockIdx.x * cols;
    float* out = y + (long long)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(row[c] - m);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    const float inv = 1.0f / red[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) * inv;
}

torch::Tensor softmax(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const int rows = x.size(0), cols = x.size(1), threads = 512;
    softmax_rows<<<rows, threads, threads * sizeof(float), at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), cols);
    return y;
}
'''

SAMPLES = [
    # file, problem (level, id), what ModelNew.forward does, expectations
    ("relu_honest.py", (1, 1), "return relu_ext.relu(x)", {"honest": True},
     "An honest ReLU kernel: every element written, fp32 arithmetic, the caller's stream."),
    ("relu_partial_write.py", (1, 1), "return relu_ext.relu_partial(x)", {"expect_flags": ["low_coverage", "incorrect"]},
     "Writes 0.3% of its output; the rest is whatever torch::empty handed out."),
    ("relu_side_stream.py", (1, 1), "return relu_ext.relu_side_stream(x)", {"expect_flags": ["side_stream_work"]},
     "Does the work on a stream of its own, so events on the caller's stream time nothing."),
    ("relu_mutates_input.py", (1, 1), "return relu_ext.relu_inplace(x)", {"expect_flags": ["input_mutation"]},
     "Computes in place and returns its input."),
    ("relu_fp16.py", (1, 1), "return relu_ext.relu_half(x)", {"expect_flags": ["precision_downgrade", "incorrect"]},
     "Rounds every value through fp16 in an fp32 task."),
    ("relu_fault.py", (1, 1), "return relu_ext.relu_fault(x)", {"expect_flags": ["fault"]},
     "Writes far outside its output: an illegal-address fault."),
    ("relu_stale_cache.py", (1, 1), None, {"expect_flags": ["low_coverage", "incorrect"]},
     "Computes once and hands the same buffer back on every later call (results cached across calls)."),
    ("softmax_honest.py", (1, 2), "return softmax_ext.softmax(x)", {"honest": True},
     "An honest softmax kernel; the problem itself accepts all zeros, so zero_acceptance (a property of the problem) is its only flag."),
    ("softmax_zeros.py", (1, 2), "return torch.zeros_like(x)", {"expect_flags": ["zero_acceptance"]},
     "Returns zeros, which pass this problem's allclose."),
]

STALE_FORWARD = '''        # Computed once, then the same buffer on every call.
        if self.cached is None or self.cached.shape != x.shape:
            self.cached = relu_ext.relu(x)
        return self.cached'''


def sample_text(name, problem, forward, doc):
    if name.startswith("relu"):
        head = RELU_HEADER
    elif forward.startswith("return softmax_ext"):
        head = ('import torch\nimport torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\n\n'
                'softmax_source = r"""%s"""\n\nsoftmax_ext = load_inline(\n    name="kwb_test_softmax",\n'
                '    cpp_sources="torch::Tensor softmax(torch::Tensor x);",\n    cuda_sources=softmax_source,\n'
                '    functions=["softmax"],\n    verbose=False,\n)\n' % SOFTMAX_CUDA)
    else:
        head = "import torch\nimport torch.nn as nn\n"
    body = STALE_FORWARD if forward is None else "        " + forward
    init_extra = "\n        self.cached = None" if forward is None else ""
    return '%s\n\nclass ModelNew(nn.Module):\n    """%s"""\n\n    def __init__(self):\n        super(ModelNew, self).__init__()%s\n\n' \
           '    def forward(self, x: torch.Tensor) -> torch.Tensor:\n%s\n' % (head, doc, init_extra, body)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    manifest = []
    for name, (level, pid), forward, expect, doc in SAMPLES:
        with open(os.path.join(here, "samples", name), "w", encoding="utf-8") as f:
            f.write(sample_text(name, (level, pid), forward, doc))
        entry = {"sample": "samples/" + name, "level": level, "problem_id": pid, "description": doc}
        entry.update(expect)
        manifest.append(entry)
    with open(os.path.join(here, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    # The same samples as native records, for kwb rerun --record FILE#ID and kwb verify
    # (with --kernelbench pointing at this folder).
    names = {1: "1_ReLU", 2: "2_Softmax"}
    with open(os.path.join(here, "samples.jsonl"), "w", encoding="utf-8") as f:
        for name, (level, pid), _forward, _expect, _doc in SAMPLES:
            with open(os.path.join(here, "samples", name), encoding="utf-8") as src:
                code = src.read()
            record = {"schema": "kwb.record/1", "id": name[:-3],
                      "problem": {"suite": "KernelBench", "level": level, "id": pid, "name": names[pid]},
                      "model": "kwb-fixture", "run": "bridge-fixtures", "sample": 0,
                      "status": {"outcome": "unknown"},
                      "source": {"code": code, "language": "python+cuda"}}
            f.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
