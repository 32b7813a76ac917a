#pragma once
// Errors as values at the core boundary: no exception leaves core/.
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace kwb {

enum class ErrorCode : std::uint8_t {
    Ok = 0,
    InvalidArgument,
    NotFound,
    IoError,
    ParseError,   // malformed syntax: the position says where
    SchemaError,  // well-formed, but not the shape we expect
    Unsupported,
    Cancelled,
    GpuError,
    Timeout,
    OutOfMemory,
    Internal,
};

const char* errorCodeName(ErrorCode code);

// Where in an input a problem sits. Any part may be unknown.
struct SourcePosition {
    std::string file;
    std::int64_t line = 0;    // 1-based; 0 = unknown
    std::int64_t column = 0;  // 1-based; 0 = unknown
    std::int64_t offset = -1; // byte offset; -1 = unknown
    std::string path;         // JSON path or record key, e.g. "level1/3_Foo.py"

    std::string toString() const;
};

class [[nodiscard]] Status {
public:
    Status() = default;
    Status(ErrorCode code, std::string message, SourcePosition where = {})
        : m_code(code), m_message(std::move(message)), m_where(std::move(where)) {}

    static Status ok() { return {}; }

    bool isOk() const { return m_code == ErrorCode::Ok; }
    explicit operator bool() const { return isOk(); }
    ErrorCode code() const { return m_code; }
    const std::string& message() const { return m_message; }
    const SourcePosition& where() const { return m_where; }
    SourcePosition& where() { return m_where; }

    // "file:line:col: [path] reason" — the form every front end prints.
    std::string toString() const;

    Status withFile(const std::string& file) const {
        Status s = *this;
        if (s.m_where.file.empty()) s.m_where.file = file;
        return s;
    }

private:
    ErrorCode m_code = ErrorCode::Ok;
    std::string m_message;
    SourcePosition m_where;
};

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_data(std::move(value)) {}             // NOLINT: implicit by design
    Result(Status status) : m_data(std::move(status)) {}      // NOLINT: implicit by design

    bool isOk() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return isOk(); }

    const T& value() const& { return std::get<T>(m_data); }
    T& value() & { return std::get<T>(m_data); }
    T&& value() && { return std::get<T>(std::move(m_data)); }
    const T* operator->() const { return &std::get<T>(m_data); }
    T* operator->() { return &std::get<T>(m_data); }
    const T& operator*() const& { return value(); }
    T& operator*() & { return value(); }

    Status status() const { return isOk() ? Status{} : std::get<Status>(m_data); }

private:
    std::variant<T, Status> m_data;
};

} // namespace kwb

#define KWB_CONCAT_INNER(a, b) a##b
#define KWB_CONCAT(a, b) KWB_CONCAT_INNER(a, b)

#define KWB_RETURN_IF_ERROR(expr)                       \
    do {                                                \
        ::kwb::Status kwb_status_ = (expr);             \
        if (!kwb_status_.isOk()) return kwb_status_;    \
    } while (0)

#define KWB_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
    auto tmp = (expr);                            \
    if (!tmp.isOk()) return tmp.status();         \
    lhs = std::move(tmp).value()

#define KWB_ASSIGN_OR_RETURN(lhs, expr) KWB_ASSIGN_OR_RETURN_IMPL(KWB_CONCAT(kwb_result_, __LINE__), lhs, expr)
