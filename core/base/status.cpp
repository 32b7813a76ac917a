#include "base/status.h"

namespace kwb {

const char* errorCodeName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::Ok: return "ok";
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::NotFound: return "not found";
    case ErrorCode::IoError: return "I/O error";
    case ErrorCode::ParseError: return "parse error";
    case ErrorCode::SchemaError: return "schema error";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::Cancelled: return "cancelled";
    case ErrorCode::GpuError: return "GPU error";
    case ErrorCode::Timeout: return "timeout";
    case ErrorCode::OutOfMemory: return "out of memory";
    case ErrorCode::Internal: return "internal error";
    }
    return "unknown error";
}

std::string SourcePosition::toString() const
{
    std::string out = file;
    if (line > 0) {
        out += ':' + std::to_string(line);
        if (column > 0) out += ':' + std::to_string(column);
    } else if (offset >= 0) {
        out += (out.empty() ? "byte " : ": byte ") + std::to_string(offset);
    }
    if (!path.empty()) out += (out.empty() ? "" : ": ") + std::string("[") + path + "]";
    return out;
}

std::string Status::toString() const
{
    if (isOk()) return "ok";
    std::string where = m_where.toString();
    std::string out = where.empty() ? std::string() : where + ": ";
    out += errorCodeName(m_code);
    out += ": ";
    out += m_message;
    return out;
}

} // namespace kwb
