#pragma once
// Element types the GPU primitives handle. Kept apart from the spec types so
// that .cu translation units need no JSON headers; gpu_executor maps DType.
#include <cstdint>

namespace kwb::gpu {

enum class ElemType : std::uint8_t { F32, F16, BF16, I32, I64, F64 };

inline int elemBytes(ElemType t)
{
    switch (t) {
    case ElemType::F16:
    case ElemType::BF16: return 2;
    case ElemType::I64:
    case ElemType::F64: return 8;
    default: return 4;
    }
}

} // namespace kwb::gpu
