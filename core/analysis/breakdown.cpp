#include "analysis/breakdown.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/json_writer.h"
#include "base/text_table.h"

namespace kwb {

namespace {

struct Interval {
    std::int64_t start;
    std::int64_t end;
};

// Length of the union of intervals sorted by start.
std::int64_t mergedLength(const std::vector<Interval>& sorted)
{
    std::int64_t total = 0;
    std::int64_t curStart = 0;
    std::int64_t curEnd = 0;
    bool open = false;
    for (const Interval& iv : sorted) {
        if (!open) {
            curStart = iv.start;
            curEnd = iv.end;
            open = true;
        } else if (iv.start <= curEnd) {
            curEnd = std::max(curEnd, iv.end);
        } else {
            total += curEnd - curStart;
            curStart = iv.start;
            curEnd = iv.end;
        }
    }
    if (open) total += curEnd - curStart;
    return total;
}

double us(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }
double ratio(std::int64_t a, std::int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

struct Acc {
    std::int64_t ns = 0;
    std::int64_t count = 0;
    std::int64_t addressableNs = 0;
};

template <typename T>
void sortByTime(std::vector<T>& v, auto key)
{
    std::sort(v.begin(), v.end(), [&](const T& a, const T& b) {
        if (a.us != b.us) return a.us > b.us;
        return key(a) < key(b);
    });
}

} // namespace

WorkloadBreakdown breakdown(const Trace& trace, const RuleTable& rules, const BreakdownOptions& options)
{
    WorkloadBreakdown out;
    out.name = trace.name();
    out.source = trace.sourcePath();
    out.format = traceFormatName(trace.format());
    out.rulesVersion = rules.version();
    if (!trace.devices().empty()) out.device = trace.devices().front().name;
    out.steps = static_cast<std::int64_t>(trace.steps().size());

    // Classify each distinct (name, kind) once.
    constexpr int kUnknown = -2;
    constexpr int kUnclassified = -1;
    std::vector<int> ruleOf[3];
    for (auto& v : ruleOf) v.assign(trace.strings().size(), kUnknown);
    const auto& ruleList = rules.rules();
    auto classify = [&](const GpuActivity& a) -> int {
        int& slot = ruleOf[static_cast<int>(a.kind)][a.name];
        if (slot == kUnknown) {
            const KernelRule* r = rules.match(trace.text(a.name), a.kind);
            slot = r ? static_cast<int>(r - ruleList.data()) : kUnclassified;
        }
        return slot;
    };

    struct FamilyAcc {
        std::string name;
        const KernelRule* rule = nullptr;
        Acc acc;
        std::vector<Interval> intervals;
    };
    // Families and categories get slots on first sight; per activity only indices are touched.
    std::vector<FamilyAcc> families;
    std::map<std::string, std::size_t> familySlot;
    std::vector<int> familyOfRule(ruleList.size() + 1, -1); // last entry: unclassified
    std::map<std::string, std::vector<Interval>> categoryIntervals;
    std::vector<std::vector<Interval>*> categoryOfFamily;
    auto familyIndex = [&](int ri) -> std::size_t {
        int& f = familyOfRule[ri >= 0 ? static_cast<std::size_t>(ri) : ruleList.size()];
        if (f < 0) {
            const KernelRule* rule = ri >= 0 ? &ruleList[static_cast<std::size_t>(ri)] : nullptr;
            const std::string name = rule ? rule->family : std::string(kUnclassifiedFamily);
            auto [it, inserted] = familySlot.emplace(name, families.size());
            if (inserted) {
                families.push_back(FamilyAcc{name, rule, {}, {}});
                categoryOfFamily.push_back(&categoryIntervals[rule ? rule->category : std::string(kUnclassifiedFamily)]);
            }
            f = static_cast<int>(it->second);
        }
        return static_cast<std::size_t>(f);
    };
    const std::size_t nStrings = trace.strings().size();
    std::vector<Acc> kernels(nStrings);
    std::vector<Acc> operators(nStrings);
    Acc unknownOperator;
    std::map<Phase, Acc> phases;
    std::vector<Interval> all;
    std::vector<Interval> addressable;
    all.reserve(trace.activities().size());
    const auto& ops = trace.ops();
    auto operatorName = [&](const GpuActivity& a) -> std::int64_t {
        if (a.op < 0) return -1;
        std::int32_t i = a.op;
        if (!options.topLevelOperators) {
            const StringId name = ops[static_cast<std::size_t>(i)].name;
            return name == StringInterner::kEmpty ? -1 : static_cast<std::int64_t>(name);
        }
        std::int32_t best = i;
        while (i >= 0) {
            if (!ops[static_cast<std::size_t>(i)].annotation) best = i;
            i = ops[static_cast<std::size_t>(i)].parent;
        }
        const StringId name = ops[static_cast<std::size_t>(best)].name;
        return name == StringInterner::kEmpty ? -1 : static_cast<std::int64_t>(name);
    };

    std::int64_t totalNs = 0;
    std::int64_t addressableNs = 0;
    std::int64_t unclassifiedNs = 0;
    for (const GpuActivity& a : trace.activities()) {
        const int ri = classify(a);
        const KernelRule* rule = ri >= 0 ? &ruleList[static_cast<std::size_t>(ri)] : nullptr;
        const bool isAddressable = rule && rule->addressable;
        const Interval iv{a.startNs, a.endNs()};
        const std::size_t fi = familyIndex(ri);
        FamilyAcc& f = families[fi];
        f.acc.ns += a.durationNs;
        ++f.acc.count;
        f.intervals.push_back(iv);
        categoryOfFamily[fi]->push_back(iv);
        all.push_back(iv);
        totalNs += a.durationNs;
        if (isAddressable) {
            addressableNs += a.durationNs;
            addressable.push_back(iv);
        }
        if (!rule) unclassifiedNs += a.durationNs;
        Acc& k = kernels[a.name];
        k.ns += a.durationNs;
        ++k.count;
        const std::int64_t opName = operatorName(a);
        Acc& o = opName >= 0 ? operators[static_cast<std::size_t>(opName)] : unknownOperator;
        o.ns += a.durationNs;
        ++o.count;
        if (isAddressable) o.addressableNs += a.durationNs;
        Acc& p = phases[a.phase];
        p.ns += a.durationNs;
        ++p.count;
        if (isAddressable) p.addressableNs += a.durationNs;
        switch (a.kind) {
        case ActivityKind::Kernel: ++out.kernelCount; break;
        case ActivityKind::Memcpy: ++out.memcpyCount; break;
        case ActivityKind::Memset: ++out.memsetCount; break;
        }
    }
    // Intervals of one family or category were pushed in activity order, which is by start.

    const std::int64_t busyNs = mergedLength(all);
    const std::int64_t addressableBusyNs = mergedLength(addressable);
    const std::int64_t spanNs = trace.spanEndNs() - trace.spanStartNs();
    out.gpuKernelUs = us(totalNs);
    out.busyUs = us(busyNs);
    out.spanUs = us(spanNs);
    out.addressableUs = us(addressableNs);
    out.addressableBusyUs = us(addressableBusyNs);
    out.unclassifiedUs = us(unclassifiedNs);
    out.addressableFraction = ratio(addressableNs, totalNs);
    out.addressableBusyFraction = ratio(addressableBusyNs, busyNs);
    out.addressableSpanFraction = ratio(addressableBusyNs, spanNs);

    std::map<std::string, CategoryTime> categories;
    std::map<std::string, bool> categoryAllAddressable;
    for (auto& f : families) {
        FamilyTime ft;
        ft.family = f.name;
        if (f.rule) {
            ft.library = f.rule->library;
            ft.category = f.rule->category;
            ft.addressable = f.rule->addressable;
        } else {
            ft.category = std::string(kUnclassifiedFamily);
        }
        ft.us = us(f.acc.ns);
        ft.busyUs = us(mergedLength(f.intervals));
        ft.count = f.acc.count;
        ft.share = ratio(f.acc.ns, totalNs);
        CategoryTime& c = categories[ft.category];
        c.category = ft.category;
        c.count += ft.count;
        auto [it, inserted] = categoryAllAddressable.emplace(ft.category, ft.addressable);
        if (!inserted) it->second = it->second && ft.addressable;
        out.families.push_back(std::move(ft));
    }
    for (auto& [name, c] : categories) {
        std::int64_t ns = 0;
        for (const auto& f : families) {
            const std::string cat = f.rule ? f.rule->category : std::string(kUnclassifiedFamily);
            if (cat == name) ns += f.acc.ns;
        }
        c.us = us(ns);
        c.share = ratio(ns, totalNs);
        c.busyUs = us(mergedLength(categoryIntervals[name]));
        c.addressable = categoryAllAddressable[name];
        out.categories.push_back(c);
    }
    sortByTime(out.families, [](const FamilyTime& f) { return f.family; });
    sortByTime(out.categories, [](const CategoryTime& c) { return c.category; });

    std::vector<KernelTime> allKernels;
    std::vector<KernelTime> unclassified;
    for (StringId id = 0; id < nStrings; ++id) {
        const Acc& acc = kernels[id];
        if (acc.count == 0) continue;
        KernelTime k;
        k.name = std::string(trace.text(id));
        k.us = us(acc.ns);
        k.count = acc.count;
        k.meanUs = acc.count ? k.us / static_cast<double>(acc.count) : 0;
        k.share = ratio(acc.ns, totalNs);
        // A name could in principle appear as several kinds; the kernel kind decides.
        int ri = kUnclassified;
        for (int kind = 0; kind < 3; ++kind) {
            if (ruleOf[kind][id] != kUnknown) {
                ri = ruleOf[kind][id];
                break;
            }
        }
        if (ri >= 0) {
            const KernelRule& r = ruleList[static_cast<std::size_t>(ri)];
            k.family = r.family;
            k.category = r.category;
            k.addressable = r.addressable;
            allKernels.push_back(std::move(k));
        } else {
            k.family = std::string(kUnclassifiedFamily);
            k.category = std::string(kUnclassifiedFamily);
            unclassified.push_back(k);
            allKernels.push_back(std::move(k));
        }
    }
    auto kernelKey = [](const KernelTime& k) { return k.name; };
    sortByTime(allKernels, kernelKey);
    sortByTime(unclassified, kernelKey);
    if (allKernels.size() > options.topKernels) allKernels.resize(options.topKernels);
    if (unclassified.size() > options.topUnclassified) unclassified.resize(options.topUnclassified);
    out.topKernels = std::move(allKernels);
    out.unclassified = std::move(unclassified);

    auto addOperator = [&](std::string_view name, const Acc& acc) {
        OperatorTime o;
        o.op = std::string(name);
        o.us = us(acc.ns);
        o.addressableUs = us(acc.addressableNs);
        o.count = acc.count;
        o.share = ratio(acc.ns, totalNs);
        out.operators.push_back(std::move(o));
    };
    for (StringId id = 0; id < nStrings; ++id)
        if (operators[id].count) addOperator(trace.text(id), operators[id]);
    if (unknownOperator.count) addOperator("(unknown)", unknownOperator);
    sortByTime(out.operators, [](const OperatorTime& o) { return o.op; });
    if (out.operators.size() > options.topOperators) out.operators.resize(options.topOperators);

    for (Phase ph : {Phase::Forward, Phase::Backward, Phase::Optimizer, Phase::Unknown}) {
        auto it = phases.find(ph);
        if (it == phases.end()) continue;
        PhaseTime p;
        p.phase = ph;
        p.us = us(it->second.ns);
        p.addressableUs = us(it->second.addressableNs);
        p.count = it->second.count;
        p.share = ratio(it->second.ns, totalNs);
        out.phases.push_back(p);
    }
    return out;
}

namespace {

double rounded(double v, int digits)
{
    const double scale = std::pow(10.0, digits);
    const double r = std::round(v * scale) / scale;
    return r == 0 ? 0.0 : r; // no "-0"
}

void writeKernels(JsonWriter& w, const std::vector<KernelTime>& list, int digits)
{
    w.beginArray();
    for (const auto& k : list) {
        w.beginObject();
        w.field("name", k.name);
        w.field("family", k.family);
        w.field("category", k.category);
        w.field("addressable", k.addressable);
        w.field("us", rounded(k.us, digits));
        w.field("count", k.count);
        w.field("share", rounded(k.share, 6));
        w.endObject();
    }
    w.endArray();
}

} // namespace

std::string breakdownToJson(const std::vector<WorkloadBreakdown>& workloads, int digits)
{
    std::string out;
    JsonWriter w(out);
    w.beginObject();
    w.field("schema", "kwb.breakdown/1");
    w.key("workloads").beginArray();
    for (const auto& b : workloads) {
        w.beginObject();
        w.field("name", b.name);
        w.field("source", b.source);
        w.field("format", b.format);
        w.field("rules_version", b.rulesVersion);
        w.field("device", b.device);
        w.field("gpu_kernel_us", rounded(b.gpuKernelUs, digits));
        w.field("busy_us", rounded(b.busyUs, digits));
        w.field("span_us", rounded(b.spanUs, digits));
        w.field("addressable_us", rounded(b.addressableUs, digits));
        w.field("addressable_busy_us", rounded(b.addressableBusyUs, digits));
        w.field("unclassified_us", rounded(b.unclassifiedUs, digits));
        w.field("addressable_fraction", rounded(b.addressableFraction, 6));
        w.field("addressable_busy_fraction", rounded(b.addressableBusyFraction, 6));
        w.field("addressable_span_fraction", rounded(b.addressableSpanFraction, 6));
        w.field("kernel_count", b.kernelCount);
        w.field("memcpy_count", b.memcpyCount);
        w.field("memset_count", b.memsetCount);
        w.field("steps", b.steps);
        w.key("families").beginArray();
        for (const auto& f : b.families) {
            w.beginObject();
            w.field("family", f.family);
            w.field("library", f.library);
            w.field("category", f.category);
            w.field("addressable", f.addressable);
            w.field("us", rounded(f.us, digits));
            w.field("busy_us", rounded(f.busyUs, digits));
            w.field("count", f.count);
            w.field("share", rounded(f.share, 6));
            w.endObject();
        }
        w.endArray();
        w.key("categories").beginArray();
        for (const auto& c : b.categories) {
            w.beginObject();
            w.field("category", c.category);
            w.field("addressable", c.addressable);
            w.field("us", rounded(c.us, digits));
            w.field("busy_us", rounded(c.busyUs, digits));
            w.field("count", c.count);
            w.field("share", rounded(c.share, 6));
            w.endObject();
        }
        w.endArray();
        w.key("phases").beginArray();
        for (const auto& p : b.phases) {
            w.beginObject();
            w.field("phase", phaseName(p.phase));
            w.field("us", rounded(p.us, digits));
            w.field("addressable_us", rounded(p.addressableUs, digits));
            w.field("count", p.count);
            w.field("share", rounded(p.share, 6));
            w.endObject();
        }
        w.endArray();
        w.key("operators").beginArray();
        for (const auto& o : b.operators) {
            w.beginObject();
            w.field("op", o.op);
            w.field("us", rounded(o.us, digits));
            w.field("addressable_us", rounded(o.addressableUs, digits));
            w.field("count", o.count);
            w.field("share", rounded(o.share, 6));
            w.endObject();
        }
        w.endArray();
        w.key("top_kernels");
        writeKernels(w, b.topKernels, digits);
        w.key("unclassified");
        writeKernels(w, b.unclassified, digits);
        w.endObject();
    }
    w.endArray();
    w.endObject();
    out += '\n';
    return out;
}

namespace {

std::string pct(double share) { return fixed(share * 100.0, 1) + "%"; }

std::string shorten(const std::string& s, std::size_t n)
{
    if (s.size() <= n) return s;
    return s.substr(0, n - 3) + "...";
}

} // namespace

std::string breakdownToTable(const std::vector<WorkloadBreakdown>& workloads)
{
    std::string out;
    for (const auto& b : workloads) {
        if (!out.empty()) out += "\n";
        out += b.name + " (" + b.format + (b.device.empty() ? "" : ", " + b.device) + ")\n";
        out += "  GPU time " + fixed(b.gpuKernelUs / 1000.0, 3) + " ms in " + std::to_string(b.kernelCount) + " kernels, "
            + std::to_string(b.memcpyCount) + " memcpy, " + std::to_string(b.memsetCount) + " memset; busy "
            + fixed(b.busyUs / 1000.0, 3) + " ms; span " + fixed(b.spanUs / 1000.0, 3) + " ms";
        if (b.steps) out += "; " + std::to_string(b.steps) + " profiler steps";
        out += "\n";
        out += "  addressable: " + pct(b.addressableFraction) + " of GPU time, " + pct(b.addressableBusyFraction)
            + " of busy time, " + pct(b.addressableSpanFraction) + " of the span; unclassified "
            + pct(b.gpuKernelUs > 0 ? b.unclassifiedUs / b.gpuKernelUs : 0) + "\n\n";
        TextTable fam({"family", "library", "category", "addressable", "ms", "share", "count"},
            {TextTable::Align::Left, TextTable::Align::Left, TextTable::Align::Left, TextTable::Align::Left,
                TextTable::Align::Right, TextTable::Align::Right, TextTable::Align::Right});
        for (const auto& f : b.families)
            fam.addRow({f.family, f.library, f.category, f.addressable ? "yes" : "no", fixed(f.us / 1000.0, 3), pct(f.share),
                std::to_string(f.count)});
        out += fam.toText();
        out += "\n";
        TextTable cat({"category", "ms", "share"}, {TextTable::Align::Left, TextTable::Align::Right, TextTable::Align::Right});
        for (const auto& c : b.categories) cat.addRow({c.category, fixed(c.us / 1000.0, 3), pct(c.share)});
        out += cat.toText();
        if (!b.phases.empty()) {
            out += "\n";
            TextTable ph({"phase", "ms", "share", "addressable ms"},
                {TextTable::Align::Left, TextTable::Align::Right, TextTable::Align::Right, TextTable::Align::Right});
            for (const auto& p : b.phases)
                ph.addRow({phaseName(p.phase), fixed(p.us / 1000.0, 3), pct(p.share), fixed(p.addressableUs / 1000.0, 3)});
            out += ph.toText();
        }
        out += "\n";
        TextTable top({"top kernel", "family", "ms", "share", "count"},
            {TextTable::Align::Left, TextTable::Align::Left, TextTable::Align::Right, TextTable::Align::Right,
                TextTable::Align::Right});
        for (const auto& k : b.topKernels)
            top.addRow({shorten(k.name, 90), k.family, fixed(k.us / 1000.0, 3), pct(k.share), std::to_string(k.count)});
        out += top.toText();
        if (!b.unclassified.empty()) {
            out += "\nunclassified kernel names (add a rule to resources/kernel_families.json or --rules):\n";
            for (const auto& k : b.unclassified)
                out += "  " + fixed(k.us / 1000.0, 3) + " ms  " + std::to_string(k.count) + "x  " + shorten(k.name, 110) + "\n";
        }
    }
    return out;
}

std::string breakdownToCsv(const std::vector<WorkloadBreakdown>& workloads)
{
    TextTable t({"workload", "family", "library", "category", "addressable", "us", "busy_us", "count", "share",
        "workload_gpu_us", "workload_addressable_fraction"});
    for (const auto& b : workloads) {
        for (const auto& f : b.families)
            t.addRow({b.name, f.family, f.library, f.category, f.addressable ? "true" : "false", fixed(f.us, 3),
                fixed(f.busyUs, 3), std::to_string(f.count), fixed(f.share, 6), fixed(b.gpuKernelUs, 3),
                fixed(b.addressableFraction, 6)});
    }
    return t.toCsv();
}

} // namespace kwb
