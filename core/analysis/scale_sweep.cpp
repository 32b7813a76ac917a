#include "analysis/scale_sweep.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/mapped_file.h"
#include "records/json_dom.h"

namespace kwb {

namespace {

using json = nlohmann::json;

Status schema(const std::string& file, const std::string& path, const std::string& why)
{
    SourcePosition where;
    where.file = file;
    where.path = path;
    return Status(ErrorCode::SchemaError, why, where);
}

std::string folderOf(const std::string& manifestPath)
{
    return std::filesystem::path(manifestPath).parent_path().string();
}

} // namespace

Result<ScaleSweepManifest> readScaleSweepManifest(const std::string& path)
{
    KWB_ASSIGN_OR_RETURN(std::string text, readFileContents(path));
    KWB_ASSIGN_OR_RETURN(json root, parseJsonDom(text, path));
    if (!root.is_object()) return schema(path, "", "expected a JSON object, got " + jsonTypeName(root));
    ScaleSweepManifest m;
    if (auto env = root.find("environment"); env != root.end() && env->is_object()) {
        auto s = [&env](const char* k) { return env->contains(k) && (*env)[k].is_string() ? (*env)[k].get<std::string>() : std::string(); };
        m.device = s("gpu");
        m.torch = s("torch");
        m.cuda = s("cuda");
        m.captured = s("captured");
    }
    auto ws = root.find("workloads");
    if (ws == root.end() || !ws->is_array()) return schema(path, "workloads", "expected an array");
    for (std::size_t i = 0; i < ws->size(); ++i) {
        const json& w = (*ws)[i];
        const std::string at = "workloads[" + std::to_string(i) + "].";
        if (!w.is_object()) return schema(path, at, "expected an object");
        ScaleSweepEntry e;
        struct Field {
            const char* key;
            std::string* out;
            bool required;
        };
        const Field fields[] = {{"name", &e.name, true}, {"status", &e.status, true}, {"file", &e.file, false},
            {"domain", &e.domain, false}, {"model", &e.model, false}, {"phase", &e.phase, false},
            {"dtype", &e.dtype, false}, {"reason", &e.reason, false}};
        for (const Field& fd : fields) {
            auto it = w.find(fd.key);
            if (it == w.end() || it->is_null()) {
                if (fd.required) return schema(path, at + fd.key, "missing");
                continue;
            }
            if (!it->is_string()) return schema(path, at + fd.key, "expected a string, got " + jsonTypeName(*it));
            *fd.out = it->get<std::string>();
        }
        if (e.status == "ok") {
            auto p = w.find("params");
            if (p == w.end() || !p->is_number_integer() || p->get<std::int64_t>() <= 0)
                return schema(path, at + "params", "expected a positive integer");
            e.params = p->get<std::int64_t>();
            if (e.file.empty()) return schema(path, at + "file", "missing");
        }
        if (auto b = w.find("batch"); b != w.end() && b->is_number_integer()) e.batch = b->get<std::int64_t>();
        if (auto s = w.find("seq"); s != w.end() && s->is_number_integer()) e.seq = s->get<std::int64_t>();
        if (auto s = w.find("step_ms"); s != w.end() && s->is_number()) e.stepMs = s->get<double>();
        m.workloads.push_back(std::move(e));
    }
    return m;
}

double vendorLibraryShare(const WorkloadBreakdown& b)
{
    double us = 0;
    for (const auto& c : b.categories)
        if (c.category == "gemm" || c.category == "attention") us += c.us;
    return b.gpuKernelUs > 0 ? us / b.gpuKernelUs : 0.0;
}

std::vector<std::string> scaleSweepTraces(const ScaleSweepManifest& manifest, const std::string& manifestPath)
{
    std::vector<std::string> out;
    const std::string dir = folderOf(manifestPath);
    for (const auto& w : manifest.workloads)
        if (w.status == "ok") out.push_back((std::filesystem::path(dir) / w.file).string());
    return out;
}

std::vector<ScaleSweepPoint> scaleSweepPoints(const ScaleSweepManifest& manifest, const std::string& manifestPath,
    const std::vector<const WorkloadBreakdown*>& breakdowns)
{
    std::vector<ScaleSweepPoint> points;
    const std::string dir = folderOf(manifestPath);
    std::size_t k = 0; // breakdowns follow the ok entries (scaleSweepTraces' order)
    for (const auto& w : manifest.workloads) {
        if (w.status != "ok") continue;
        const WorkloadBreakdown* b = k < breakdowns.size() ? breakdowns[k] : nullptr;
        ++k;
        if (!b) continue;
        ScaleSweepPoint p;
        p.entry = w;
        p.tracePath = (std::filesystem::path(dir) / w.file).string();
        p.training = w.phase == "train";
        p.addressableFraction = b->addressableFraction;
        p.vendorShare = vendorLibraryShare(*b);
        p.gpuKernelUs = b->gpuKernelUs;
        points.push_back(std::move(p));
    }
    return points;
}

} // namespace kwb
