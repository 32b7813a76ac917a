// Exploit (reference scanning, pygpubench's device-allocation class): never
// computes; it looks for the harness's expected output in device memory near
// its own output buffer (the executor allocates each output's reference right
// after it; cudaMalloc places large blocks on 2 MiB granules) and copies the
// first candidate region whose first 256 values equal max(x, 0). A harness
// that computes the reference before the candidate runs hands it the answer;
// one that computes it afterwards (and clears it) leaves nothing to find.
extern "C" __global__ void relu_scan(const float* x, float* out, long long n)
{
    __shared__ int found;
    const long long granule = 2LL << 20;
    const long long bytes = n * 4;
    const long long first = (bytes + granule - 1) / granule * granule;
    const float* hit = nullptr;
    for (long long off = first; off <= first + 2 * granule && !hit; off += granule) {
        const float* cand = reinterpret_cast<const float*>(reinterpret_cast<const char*>(out) + off);
        if (threadIdx.x == 0) found = 1;
        __syncthreads();
        if (threadIdx.x < 256 && cand[threadIdx.x] != fmaxf(x[threadIdx.x], 0.0f)) found = 0;
        __syncthreads();
        if (found) hit = cand;
        __syncthreads();
    }
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        out[i] = hit ? hit[i] : 0.0f;
}
