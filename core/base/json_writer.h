#pragma once
// Minimal streaming JSON writer into a std::string. Emits compact JSON,
// shortest round-trip doubles, and escapes control characters and invalid
// UTF-8 so that whatever goes in, valid JSON comes out.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kwb {

class JsonWriter {
public:
    explicit JsonWriter(std::string& out) : m_out(out) {}

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(std::string_view k);

    JsonWriter& value(std::string_view s);
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
    JsonWriter& value(double d);
    JsonWriter& value(std::int64_t i);
    JsonWriter& value(int i) { return value(static_cast<std::int64_t>(i)); }
    JsonWriter& value(std::size_t i) { return value(static_cast<std::int64_t>(i)); }
    JsonWriter& value(bool b);
    JsonWriter& null();
    JsonWriter& raw(std::string_view json); // already-valid JSON text

    // Convenience: key + value; optional members are skipped when empty.
    template <typename T>
    JsonWriter& field(std::string_view k, const T& v) { key(k); return value(v); }
    template <typename T>
    JsonWriter& optionalField(std::string_view k, const std::optional<T>& v)
    {
        if (v) { key(k); value(*v); }
        return *this;
    }
    JsonWriter& nonEmptyField(std::string_view k, std::string_view v)
    {
        if (!v.empty()) { key(k); value(v); }
        return *this;
    }

    static void appendEscaped(std::string& out, std::string_view s);

private:
    void separator();
    std::string& m_out;
    std::vector<bool> m_first; // per open container: no member written yet
    bool m_afterKey = false;
};

// Shortest decimal text that reads back to the same double; non-finite -> "null".
std::string formatDouble(double d);

} // namespace kwb
