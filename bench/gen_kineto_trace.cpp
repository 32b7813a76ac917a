// Generates a large Kineto trace by replicating a real one: the events of
// the source trace are written again and again, each copy shifted in time by
// the source's span and with its External ids, correlation ids and flow ids
// shifted past the previous copy's, so operators still link to their kernels.
// The bytes of each event are the source's own (same field order, spacing and
// number formats); only the shifted numbers change.
//
//   gen_kineto_trace SOURCE(.json|.json.gz) OUT.json SIZE_MB
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/mapped_file.h"

namespace {

enum class Field { Ts, ExternalId, Correlation, FlowId };

struct Slot {
    std::size_t literalEnd; // literal bytes of the event before this number
    std::size_t numberEnd;  // where the number's text ends
    Field field;
    std::int64_t value;     // ns for Ts, the id otherwise
};

struct EventTemplate {
    std::string text;
    std::vector<Slot> slots;
};

// Scans one JSON value starting at s[i] (an object), returning the index past its end.
std::size_t objectEnd(std::string_view s, std::size_t i)
{
    int depth = 0;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '"') {
            for (++i; i < s.size() && s[i] != '"'; ++i)
                if (s[i] == '\\') ++i;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) return i + 1;
        }
    }
    return std::string_view::npos;
}

std::int64_t parseUsToNs(std::string_view t)
{
    std::int64_t whole = 0;
    std::size_t i = 0;
    bool neg = t.size() && t[0] == '-';
    if (neg) ++i;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) whole = whole * 10 + (t[i] - '0');
    std::int64_t frac = 0;
    int digits = 0;
    if (i < t.size() && t[i] == '.')
        for (++i; i < t.size() && t[i] >= '0' && t[i] <= '9' && digits < 3; ++i, ++digits) frac = frac * 10 + (t[i] - '0');
    for (; digits < 3; ++digits) frac *= 10;
    const std::int64_t ns = whole * 1000 + frac;
    return neg ? -ns : ns;
}

// Finds `"key": NUMBER` occurrences in an event's text.
void addSlots(EventTemplate& ev, std::string_view key, Field field)
{
    const std::string& s = ev.text;
    std::size_t pos = 0;
    while ((pos = s.find(key, pos)) != std::string::npos) {
        std::size_t i = pos + key.size();
        while (i < s.size() && (s[i] == ' ' || s[i] == ':')) ++i;
        std::size_t j = i;
        while (j < s.size() && (s[j] == '-' || s[j] == '.' || (s[j] >= '0' && s[j] <= '9'))) ++j;
        if (j > i) {
            const std::string_view num(s.data() + i, j - i);
            const std::int64_t v = field == Field::Ts ? parseUsToNs(num) : std::strtoll(std::string(num).c_str(), nullptr, 10);
            ev.slots.push_back({i, j, field, v});
        }
        pos = j;
    }
}

void appendUs(std::string& out, std::int64_t ns)
{
    char buf[48];
    const bool neg = ns < 0;
    const std::int64_t a = neg ? -ns : ns;
    const int n = std::snprintf(buf, sizeof(buf), "%s%lld.%03lld", neg ? "-" : "", static_cast<long long>(a / 1000),
        static_cast<long long>(a % 1000));
    out.append(buf, static_cast<std::size_t>(n));
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: gen_kineto_trace SOURCE(.json|.json.gz) OUT.json SIZE_MB\n");
        return 2;
    }
    auto src = kwb::readFileContents(argv[1]);
    if (!src.isOk()) {
        std::fprintf(stderr, "gen_kineto_trace: %s\n", src.status().toString().c_str());
        return 1;
    }
    const std::string_view text = *src;
    const std::uint64_t target = std::strtoull(argv[3], nullptr, 10) << 20;
    const std::size_t key = text.find("\"traceEvents\"");
    const std::size_t open = key == std::string_view::npos ? key : text.find('[', key);
    if (open == std::string_view::npos) {
        std::fprintf(stderr, "gen_kineto_trace: %s has no traceEvents array\n", argv[1]);
        return 1;
    }
    // Split the array into event texts.
    std::vector<EventTemplate> events;
    std::size_t i = open + 1;
    std::size_t close = std::string_view::npos;
    std::int64_t minTs = INT64_MAX, maxTs = INT64_MIN, maxExternal = 0, maxCorrelation = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t' || text[i] == ',')) ++i;
        if (i >= text.size()) break;
        if (text[i] == ']') {
            close = i;
            break;
        }
        const std::size_t end = objectEnd(text, i);
        if (end == std::string_view::npos) break;
        EventTemplate ev;
        ev.text = std::string(text.substr(i, end - i));
        addSlots(ev, "\"ts\"", Field::Ts);
        addSlots(ev, "\"External id\"", Field::ExternalId);
        addSlots(ev, "\"correlation\"", Field::Correlation);
        addSlots(ev, "\"id\"", Field::FlowId);
        std::sort(ev.slots.begin(), ev.slots.end(), [](const Slot& a, const Slot& b) { return a.literalEnd < b.literalEnd; });
        for (const Slot& s : ev.slots) {
            if (s.field == Field::Ts) {
                minTs = std::min(minTs, s.value);
                maxTs = std::max(maxTs, s.value);
            } else if (s.field == Field::ExternalId) {
                maxExternal = std::max(maxExternal, s.value);
            } else {
                maxCorrelation = std::max(maxCorrelation, s.value); // flow ids are correlation ids
            }
        }
        events.push_back(std::move(ev));
        i = end;
    }
    if (close == std::string_view::npos || events.empty()) {
        std::fprintf(stderr, "gen_kineto_trace: could not split the events of %s\n", argv[1]);
        return 1;
    }
    const std::int64_t shiftNs = (maxTs - minTs) + 1'000'000; // copies 1 ms apart
    // Each id space shifts by its own extent, so ids stay as dense as in the source.
    const std::int64_t shiftExternal = maxExternal + 1;
    const std::int64_t shiftCorrelation = maxCorrelation + 1;

    std::FILE* out = std::fopen(argv[2], "wb");
    if (!out) {
        std::perror(argv[2]);
        return 1;
    }
    std::string buf;
    buf.reserve(8u << 20);
    buf.append(text.substr(0, open + 1));
    std::uint64_t written = 0;
    std::int64_t copies = 0;
    bool first = true;
    // The trailer is small; stop once the body passes the target.
    while (written + buf.size() < target) {
        for (const EventTemplate& ev : events) {
            if (!first) buf.append(",\n  ");
            first = false;
            std::size_t pos = 0;
            for (const Slot& s : ev.slots) {
                buf.append(ev.text, pos, s.literalEnd - pos);
                if (s.field == Field::Ts) appendUs(buf, s.value + copies * shiftNs);
                else
                    buf.append(std::to_string(s.value + copies * (s.field == Field::ExternalId ? shiftExternal : shiftCorrelation)));
                pos = s.numberEnd;
            }
            buf.append(ev.text, pos, std::string::npos);
            if (buf.size() >= (4u << 20)) {
                std::fwrite(buf.data(), 1, buf.size(), out);
                written += buf.size();
                buf.clear();
            }
        }
        ++copies;
    }
    buf.append("\n");
    buf.append(text.substr(close));
    std::fwrite(buf.data(), 1, buf.size(), out);
    written += buf.size();
    if (std::fclose(out) != 0) {
        std::perror(argv[2]);
        return 1;
    }
    std::printf("%s: %llu bytes, %lld copies of %zu events from %s\n", argv[2], static_cast<unsigned long long>(written),
        static_cast<long long>(copies), events.size(), argv[1]);
    return 0;
}
