#pragma once
// UTF-8 validation, so that readers can point at the first bad byte.
#include <cstddef>
#include <string_view>

namespace kwb {

// Offset of the first byte that does not start or continue a valid UTF-8
// sequence (overlong forms, surrogates and code points past U+10FFFF are
// invalid), or npos when the text is valid.
std::size_t firstInvalidUtf8(std::string_view text);

} // namespace kwb
