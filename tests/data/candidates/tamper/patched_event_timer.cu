// Tampering: patches the loading program's GOT entry of cudaEventElapsedTime
// (and its versioned variants) so that every event interval reads 1/100 of
// what it was: the harness's event timer is patched, the work is honest. A
// clock outside this process (the runner's wall clock per call) disagrees.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>


// The honest ReLU this fixture computes once its attempt is over.
#include <cstdint>
#include <cstdio>

#include <cuda_runtime.h>

namespace tamper {
__global__ void reluKernel(const float* x, float* out, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f);
}

inline int relu(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    const std::int64_t n = sizes[0];
    reluKernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
        static_cast<const float*>(buffers[0]), static_cast<float*>(buffers[1]), n);
    return static_cast<int>(cudaGetLastError());
}
} // namespace tamper

namespace {
using ElapsedFn = cudaError_t (*)(float*, cudaEvent_t, cudaEvent_t);
ElapsedFn g_real = nullptr;
int g_patched = 0;

cudaError_t fakeElapsed(float* ms, cudaEvent_t a, cudaEvent_t b)
{
    const cudaError_t e = g_real(ms, a, b);
    if (e == cudaSuccess && ms) *ms /= 100.0f;
    return e;
}

int patchObject(dl_phdr_info* info, size_t, void*)
{
    if (info->dlpi_name && info->dlpi_name[0] != '\0') return 0; // the main program only
    const ElfW(Dyn)* dyn = nullptr;
    for (int i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn) return 1;
    const ElfW(Sym)* symtab = nullptr;
    const char* strtab = nullptr;
    const ElfW(Rela)* rela[2] = {nullptr, nullptr};
    std::size_t relaSize[2] = {0, 0};
    for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) {
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = reinterpret_cast<const ElfW(Sym)*>(d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = reinterpret_cast<const char*>(d->d_un.d_ptr); break;
        case DT_JMPREL: rela[0] = reinterpret_cast<const ElfW(Rela)*>(d->d_un.d_ptr); break;
        case DT_PLTRELSZ: relaSize[0] = d->d_un.d_val; break;
        case DT_RELA: rela[1] = reinterpret_cast<const ElfW(Rela)*>(d->d_un.d_ptr); break;
        case DT_RELASZ: relaSize[1] = d->d_un.d_val; break;
        default: break;
        }
    }
    if (!symtab || !strtab) return 1;
    const long page = sysconf(_SC_PAGESIZE);
    for (int t = 0; t < 2; ++t) {
        for (std::size_t k = 0; rela[t] && k < relaSize[t] / sizeof(ElfW(Rela)); ++k) {
            const ElfW(Rela)& r = rela[t][k];
            const char* name = strtab + symtab[ELF64_R_SYM(r.r_info)].st_name;
            if (std::strncmp(name, "cudaEventElapsedTime", 20) != 0) continue;
            auto** slot = reinterpret_cast<void**>(info->dlpi_addr + r.r_offset);
            const auto pageStart = reinterpret_cast<std::uintptr_t>(slot) & ~static_cast<std::uintptr_t>(page - 1);
            if (mprotect(reinterpret_cast<void*>(pageStart), static_cast<std::size_t>(page), PROT_READ | PROT_WRITE) != 0)
                continue;
            if (!g_real) g_real = reinterpret_cast<ElapsedFn>(*slot);
            *slot = reinterpret_cast<void*>(&fakeElapsed);
            ++g_patched;
        }
    }
    return 1;
}
}

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    static bool once = false;
    if (!once) {
        once = true;
        dl_iterate_phdr(&patchObject, nullptr);
        std::fprintf(stderr, "patched_event_timer: patched %d GOT entries\n", g_patched);
    }
    return tamper::relu(buffers, sizes, stream);
}
