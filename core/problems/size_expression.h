#pragma once
// A tiny, safe arithmetic language for sizes in specs: shapes, launch
// configurations, FLOP and byte counts are written as expressions over the
// problem's named integer sizes, e.g. "ceil_div(N, 256)" or "2*M*N*K".
//
// Grammar (64-bit signed integers only):
//   expr   := term (('+' | '-') term)*
//   term   := unary (('*' | '/' | '%') unary)*
//   unary  := ('-' | '+') unary | primary
//   primary:= INTEGER | NAME | FUNC '(' expr (',' expr)* ')' | '(' expr ')'
//   FUNC   := ceil_div | min | max   (each takes exactly two arguments)
// Anything else is rejected. Overflow, division by zero, unknown names,
// inputs over kMaxExpressionLength and nesting deeper than kMaxExpressionDepth
// are errors, never crashes: specs come from untrusted sources.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kwb {

using SizeMap = std::map<std::string, std::int64_t, std::less<>>;

inline constexpr std::size_t kMaxExpressionLength = 4096;
inline constexpr int kMaxExpressionDepth = 64;

// The error message names the expression, the column and the reason;
// SourcePosition::column is the 1-based column inside the expression.
Result<std::int64_t> evaluateSizeExpression(std::string_view expression, const SizeMap& sizes);

// Names the expression refers to (for validating specs before sizes are known).
Result<std::vector<std::string>> sizeExpressionNames(std::string_view expression);

} // namespace kwb
