#include "rerun/protocol.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "records/json_dom.h"
#include "rerun/protocol_fields.h"

namespace kwb {

const char* rerunStatusName(RerunStatus status)
{
    switch (status) {
    case RerunStatus::Ok:
        return "ok";
    case RerunStatus::CompileError:
        return "compile_error";
    case RerunStatus::LaunchError:
        return "launch_error";
    case RerunStatus::Fault:
        return "fault";
    case RerunStatus::Timeout:
        return "timeout";
    case RerunStatus::OutOfMemory:
        return "oom";
    case RerunStatus::NoDevice:
        return "no_device";
    case RerunStatus::Unsupported:
        return "unsupported";
    case RerunStatus::InternalError:
        return "internal_error";
    }
    return "internal_error";
}

std::optional<RerunStatus> rerunStatusFromName(std::string_view name)
{
    for (auto s :
        {RerunStatus::Ok, RerunStatus::CompileError, RerunStatus::LaunchError, RerunStatus::Fault, RerunStatus::Timeout,
            RerunStatus::OutOfMemory, RerunStatus::NoDevice, RerunStatus::Unsupported, RerunStatus::InternalError})
        if (name == rerunStatusName(s)) return s;
    return std::nullopt;
}

void RerunResult::markCheck(std::string_view name)
{
    if (!ranCheck(name)) checksRun.emplace_back(name);
}

bool RerunResult::ranCheck(std::string_view name) const
{
    return std::find(checksRun.begin(), checksRun.end(), name) != checksRun.end();
}

bool RerunResult::allOutputsPassed() const
{
    if (outputs.empty()) return false;
    return std::all_of(outputs.begin(), outputs.end(), [](const OutputCheck& o) { return o.passed; });
}

double RerunResult::minCoverage() const
{
    double m = 1.0;
    for (const auto& c : coverage)
        if (c.coverage.writtenFraction) m = std::min(m, *c.coverage.writtenFraction);
    return m;
}

namespace {

using nlohmann::json;

// Non-finite doubles travel as the strings "inf", "-inf", "nan" (JSON has no such numbers).
json num(double v)
{
    if (std::isfinite(v)) return v;
    if (std::isnan(v)) return "nan";
    return v > 0 ? "inf" : "-inf";
}

template <typename T> inline constexpr bool kIsOptional = false;
template <typename T> inline constexpr bool kIsOptional<std::optional<T>> = true;
template <typename T> inline constexpr bool kIsVector = false;
template <typename T> inline constexpr bool kIsVector<std::vector<T>> = true;
template <typename T> inline constexpr bool kUnsupportedMember = false;

// A visitor that does nothing, to ask whether a type has a field list.
struct FieldProbe {
    template <typename T, typename Presence = wire::Always> void operator()(const char*, T&, Presence = {}) { }
    template <typename F> void derived(const char*, F&&) { }
    template <typename F> void check(F&&, const char*) { }
};
template <typename T>
concept HasFields = requires(FieldProbe& probe, T& value)
{
    visitFields(probe, value);
};

// ---- encoding ----

template <typename T> json toJson(const T& value);

class Encoder {
public:
    json out = json::object();

    template <typename T, typename Presence = wire::Always>
    void operator()(const char* key, const T& value, Presence = {})
    {
        if constexpr (kIsOptional<T>) {
            if (value) out[key] = toJson(*value);
        } else {
            if constexpr (std::is_same_v<Presence, wire::OmitDefault>) {
                if constexpr (std::is_arithmetic_v<T>) {
                    if (value == T {}) return;
                } else {
                    static_assert(
                        requires { value.empty(); }, "wire::OmitDefault needs a number, string or container");
                    if (value.empty()) return;
                }
            }
            out[key] = toJson(value);
        }
    }
    template <typename F> void derived(const char* key, F&& compute)
    {
        if (auto v = compute()) out[key] = toJson(*v);
    }
    template <typename F> void check(F&&, const char*) { }
};

template <typename T> json toJson(const T& value)
{
    if constexpr (HasFields<const T>) {
        Encoder e;
        visitFields(e, value);
        return std::move(e.out);
    } else if constexpr (std::is_floating_point_v<T>) {
        return num(value);
    } else if constexpr (std::is_same_v<T, RerunStatus>) {
        return rerunStatusName(value);
    } else if constexpr (std::is_same_v<T, DType>) {
        return dtypeName(value);
    } else if constexpr (std::is_same_v<T, ProblemSpec>) {
        return problemSpecToJson(value);
    } else if constexpr (std::is_same_v<T, CandidateSpec>) {
        return candidateSpecToJson(value);
    } else if constexpr (std::is_same_v<T, SizeMap>) {
        json o = json::object();
        for (const auto& [k, v] : value) o[k] = v;
        return o;
    } else if constexpr (kIsVector<T>) {
        json a = json::array();
        for (const auto& v : value) a.push_back(toJson(v));
        return a;
    } else if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T> || std::is_same_v<T, std::string>) {
        return value;
    } else {
        static_assert(kUnsupportedMember<T>, "no wire form for this member type");
    }
}

template <typename T> json messageJson(const T& message)
{
    static_assert(!kMessageType<T>.empty(), "every message needs its kMessageType (protocol_fields.h)");
    json j = toJson(message);
    j["protocol"] = kRerunProtocol;
    j["type"] = kMessageType<T>;
    return j;
}

// ---- decoding ----
// Lenient about presence: absent (or null) members keep their defaults and
// unknown members are ignored (newer peers may send more). Strict about
// types: a member of the wrong type is an error naming its path. The first
// error wins.

template <typename T> bool readValue(Status& status, const json& v, const std::string& path, T& out);

bool fail(Status& status, const std::string& path, const std::string& reason)
{
    if (status.isOk()) {
        SourcePosition where;
        where.path = path;
        status = Status(ErrorCode::SchemaError, reason, where);
    }
    return false;
}

class Decoder {
public:
    Decoder(Status& status, const json& object, const std::string& path)
        : m_status(status)
        , m_object(object)
        , m_path(path)
    {
    }

    template <typename T, typename Presence = wire::Always> void operator()(const char* key, T& value, Presence = {})
    {
        auto it = m_object.find(key);
        if (it == m_object.end() || it->is_null()) {
            if constexpr (std::is_same_v<Presence, wire::Required>)
                fail(m_status, at(key), std::string("no '") + key + "' member");
            return;
        }
        if constexpr (kIsOptional<T>) {
            typename T::value_type v {};
            if (readValue(m_status, *it, at(key), v)) value = std::move(v);
        } else {
            readValue(m_status, *it, at(key), value);
        }
    }
    template <typename F> void derived(const char*, F&&) { }
    template <typename F> void check(F&& holds, const char* reason)
    {
        if (!holds()) fail(m_status, m_path, reason);
    }

private:
    std::string at(const char* key) const { return m_path.empty() ? key : m_path + "." + key; }

    Status& m_status;
    const json& m_object;
    const std::string& m_path;
};

bool readNumber(Status& status, const json& v, const std::string& path, double& out)
{
    if (v.is_number()) {
        out = v.get<double>();
        return true;
    }
    if (v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        if (s == "inf")
            out = std::numeric_limits<double>::infinity();
        else if (s == "-inf")
            out = -std::numeric_limits<double>::infinity();
        else if (s == "nan")
            out = std::numeric_limits<double>::quiet_NaN();
        else
            return fail(status, path, "expected a number, found the string '" + s + "'");
        return true;
    }
    return fail(status, path, "expected a number, found " + jsonTypeName(v));
}

// An enumeration carried by its name (rerun status, precision).
template <typename E, typename FromName>
bool readName(Status& status, const json& v, const std::string& path, const char* what, FromName fromName, E& out)
{
    if (!v.is_string()) return fail(status, path, "expected a string, found " + jsonTypeName(v));
    const auto& s = v.get_ref<const std::string&>();
    if (auto e = fromName(s)) {
        out = *e;
        return true;
    }
    return fail(status, path, std::string("unknown ") + what + " '" + s + "'");
}

// Specs carry their own reader (problems/), whose errors name the member.
template <typename Spec, typename FromJson>
bool readSpec(Status& status, const json& v, const char* label, FromJson fromJson, Spec& out)
{
    auto spec = fromJson(v, label);
    if (!spec) {
        if (status.isOk()) status = spec.status();
        return false;
    }
    out = std::move(*spec);
    return true;
}

template <typename T> bool readValue(Status& status, const json& v, const std::string& path, T& out)
{
    if constexpr (HasFields<T>) {
        if (!v.is_object()) return fail(status, path, "expected an object, found " + jsonTypeName(v));
        Decoder d(status, v, path);
        visitFields(d, out);
        return status.isOk();
    } else if constexpr (std::is_same_v<T, bool>) {
        if (!v.is_boolean()) return fail(status, path, "expected true or false, found " + jsonTypeName(v));
        out = v.get<bool>();
        return true;
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (!v.is_string()) return fail(status, path, "expected a string, found " + jsonTypeName(v));
        out = v.get<std::string>();
        return true;
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
        if (!v.is_number_unsigned())
            return fail(status, path, "expected a non-negative integer, found " + jsonTypeName(v));
        out = v.get<std::uint64_t>();
        return true;
    } else if constexpr (std::is_integral_v<T>) {
        if (!v.is_number_integer()) return fail(status, path, "expected an integer, found " + jsonTypeName(v));
        const auto x = v.get<std::int64_t>();
        if (x < std::int64_t(std::numeric_limits<T>::min())
            || (x > 0 && std::uint64_t(x) > std::uint64_t(std::numeric_limits<T>::max())))
            return fail(status, path, "integer out of range");
        out = static_cast<T>(x);
        return true;
    } else if constexpr (std::is_floating_point_v<T>) {
        double x = 0.0;
        if (!readNumber(status, v, path, x)) return false;
        out = static_cast<T>(x);
        return true;
    } else if constexpr (std::is_same_v<T, RerunStatus>) {
        return readName(status, v, path, "status", rerunStatusFromName, out);
    } else if constexpr (std::is_same_v<T, DType>) {
        return readName(status, v, path, "precision", dtypeFromName, out);
    } else if constexpr (std::is_same_v<T, ProblemSpec>) {
        return readSpec(status, v, "<request problem>", problemSpecFromJson, out);
    } else if constexpr (std::is_same_v<T, CandidateSpec>) {
        return readSpec(
            status, v, "<request candidate>",
            [](const json& j, const char* label) { return candidateSpecFromJson(j, label); }, out);
    } else if constexpr (std::is_same_v<T, SizeMap>) {
        if (!v.is_object()) return fail(status, path, "expected an object, found " + jsonTypeName(v));
        for (const auto& [k, x] : v.items()) {
            std::int64_t size = 0;
            readValue(status, x, path + "." + k, size);
            out[k] = size;
        }
        return status.isOk();
    } else if constexpr (kIsVector<T>) {
        if (!v.is_array()) return fail(status, path, "expected an array, found " + jsonTypeName(v));
        for (std::size_t i = 0; i < v.size(); ++i) {
            typename T::value_type e {};
            readValue(status, v[i], path + "[" + std::to_string(i) + "]", e);
            out.push_back(std::move(e));
        }
        return status.isOk();
    } else {
        static_assert(kUnsupportedMember<T>, "no wire form for this member type");
    }
}

// The message whose "type" is `type`, read over the alternatives of ProtocolMessage.
template <std::size_t I = 0> Result<ProtocolMessage> decodeAs(const json& j, const std::string& type)
{
    if constexpr (I == std::variant_size_v<ProtocolMessage>) {
        return Status(ErrorCode::SchemaError, "unknown message type '" + type + "'");
    } else {
        using T = std::variant_alternative_t<I, ProtocolMessage>;
        if (type != kMessageType<T>) return decodeAs<I + 1>(j, type);
        Status status;
        T message;
        readValue(status, j, "", message);
        if (!status.isOk()) return status;
        return ProtocolMessage {std::in_place_index<I>, std::move(message)};
    }
}

} // namespace

nlohmann::json deviceInfoToJson(const DeviceInfo& device)
{
    return toJson(device);
}

nlohmann::json rerunResultToJson(const RerunResult& result)
{
    return messageJson(result);
}

Result<RerunResult> rerunResultFromJson(const nlohmann::json& j)
{
    if (!j.is_object()) return Status(ErrorCode::SchemaError, "a result must be an object, found " + jsonTypeName(j));
    Status status;
    RerunResult r;
    readValue(status, j, "", r);
    if (!status.isOk()) return status;
    return r;
}

std::string encodeMessage(const ProtocolMessage& message)
{
    const json j = std::visit([](const auto& m) { return messageJson(m); }, message);
    // Replacement instead of an exception for invalid UTF-8 (compiler logs may carry any bytes).
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<ProtocolMessage> decodeMessage(std::string_view line)
{
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    auto dom = parseJsonDom(line, "<protocol>");
    if (!dom) return dom.status();
    const json& j = *dom;
    if (!j.is_object())
        return Status(ErrorCode::SchemaError, "a protocol line must be a JSON object, found " + jsonTypeName(j));
    auto proto = j.find("protocol");
    if (proto == j.end() || !proto->is_string())
        return Status(ErrorCode::SchemaError,
            "line has no \"protocol\" member (expected \"" + std::string(kRerunProtocol) + "\")");
    if (proto->get<std::string>() != kRerunProtocol)
        return Status(ErrorCode::Unsupported,
            "protocol version mismatch: peer speaks \"" + proto->get<std::string>() + "\", this build speaks \""
                + std::string(kRerunProtocol) + "\"");
    Status status;
    std::string type;
    if (auto t = j.find("type"); t != j.end() && !t->is_null()) readValue(status, *t, "type", type);
    if (!status.isOk()) return status;
    return decodeAs(j, type);
}

} // namespace kwb
