#pragma once
// Hopper's bulk asynchronous copy (cp.async.bulk, the engine behind TMA):
// one thread moves up to tens of KB from global into shared memory and the
// copy completes on an mbarrier. The bytes in flight live in shared memory,
// not in registers, so a streaming kernel that does real work per element
// still keeps the memory system full. sm_90 and later; device code only.
#include <cstdint>

namespace kwb::gpu::bulk {

__device__ inline unsigned sharedAddress(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One arrival (the thread that posts the expected bytes) completes a phase.
__device__ inline void initBarrier(std::uint64_t* bar)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sharedAddress(bar)), "r"(1u) : "memory");
}

// After initBarrier: make the barriers visible to the copy engine (the async proxy).
__device__ inline void fenceBarrierInit()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Arrives on the barrier and tells it how many bytes the copies of this phase bring.
__device__ inline void expectBytes(std::uint64_t* bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sharedAddress(bar)), "r"(bytes)
                 : "memory");
}

// dst, src 16-byte aligned; bytes a multiple of 16.
__device__ inline void copyToShared(void* dst, const void* src, unsigned bytes, std::uint64_t* bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     sharedAddress(dst)),
        "l"(src), "r"(bytes), "r"(sharedAddress(bar))
        : "memory");
}

__device__ inline void waitPhase(std::uint64_t* bar, unsigned parity)
{
    unsigned done = 0;
    do {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(sharedAddress(bar)), "r"(parity)
                     : "memory");
    } while (!done);
}

} // namespace kwb::gpu::bulk
