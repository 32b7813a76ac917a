// Failure class: asks for far more device memory than exists and reports the
// allocation error through the C ABI's return value.
#include <cstdint>

#include <cuda_runtime.h>

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    (void)buffers;
    (void)sizes;
    (void)stream;
    void* scratch = nullptr;
    const cudaError_t err = cudaMalloc(&scratch, std::size_t{1} << 50); // 1 PiB
    if (err != cudaSuccess) return static_cast<int>(err);
    cudaFree(scratch);
    return 0;
}
