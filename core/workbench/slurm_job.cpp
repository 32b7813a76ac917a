#include "workbench/slurm_job.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/mapped_file.h"
#include "workbench/child_command.h"
#include "workbench/shard.h"

namespace kwb {

namespace {

std::string shellQuote(const std::string& s) { return commandLineText({s}); }

} // namespace

std::string SlurmJob::partPath(std::uint32_t task) const { return dir + "/part-" + std::to_string(task) + ".jsonl"; }
std::string SlurmJob::logPath(std::uint32_t task) const { return dir + "/task-" + std::to_string(task) + ".log"; }
std::string SlurmJob::statePath(std::uint32_t task) const { return dir + "/task-" + std::to_string(task) + ".state"; }

std::string defaultJobDir(const std::string& out) { return out + ".slurm"; }

Status writeSlurmJob(const SlurmJob& job)
{
    nlohmann::ordered_json j;
    j["schema"] = kSlurmJobSchema;
    j["out"] = job.out;
    j["inputs"] = job.inputs;
    j["shards"] = job.shards;
    j["shard_records"] = job.shardSizes;
    j["kwb"] = job.kwb;
    j["gres"] = job.gres;
    j["verify_args"] = job.verifyArgs;
    j["sbatch_args"] = job.sbatchArgs;
    j["submissions"] = nlohmann::ordered_json::array();
    for (const auto& s : job.submissions)
        j["submissions"].push_back({{"job_id", s.jobId}, {"tasks", taskListText(s.tasks)}, {"submitted_at", s.submittedAt}});
    return writeFileAtomically(job.manifestPath(), j.dump(2) + "\n");
}

Result<SlurmJob> readSlurmJob(const std::string& dir)
{
    SlurmJob job;
    job.dir = std::filesystem::absolute(dir).lexically_normal().string();
    while (job.dir.size() > 1 && job.dir.back() == '/') job.dir.pop_back();
    const std::string path = job.manifestPath();
    KWB_ASSIGN_OR_RETURN(std::string text, readFileContents(path));
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Status(ErrorCode::ParseError, "not a JSON object", SourcePosition{path});
    if (j.value("schema", "") != kSlurmJobSchema)
        return Status(ErrorCode::SchemaError, std::string("not a ") + kSlurmJobSchema + " job manifest", SourcePosition{path, 0, 0, -1, "schema"});
    try {
        job.out = j.at("out").get<std::string>();
        job.inputs = j.at("inputs").get<std::vector<std::string>>();
        job.shards = j.at("shards").get<std::uint32_t>();
        job.shardSizes = j.at("shard_records").get<std::vector<std::uint64_t>>();
        job.kwb = j.at("kwb").get<std::string>();
        job.gres = j.value("gres", std::string("gpu:1"));
        job.verifyArgs = j.value("verify_args", std::vector<std::string>{});
        job.sbatchArgs = j.value("sbatch_args", std::vector<std::string>{});
        for (const auto& s : j.value("submissions", nlohmann::json::array())) {
            SlurmSubmission sub;
            sub.jobId = s.at("job_id").get<std::string>();
            sub.submittedAt = s.value("submitted_at", "");
            // "0-3,5"
            const std::string list = s.at("tasks").get<std::string>();
            std::size_t pos = 0;
            while (pos < list.size()) {
                const std::size_t comma = std::min(list.find(',', pos), list.size());
                const std::string item = list.substr(pos, comma - pos);
                const auto dash = item.find('-');
                const auto first = static_cast<std::uint32_t>(std::stoul(item.substr(0, dash)));
                const auto last = dash == std::string::npos ? first : static_cast<std::uint32_t>(std::stoul(item.substr(dash + 1)));
                for (std::uint32_t t = first; t <= last; ++t) sub.tasks.push_back(t);
                pos = comma + 1;
            }
            job.submissions.push_back(std::move(sub));
        }
    } catch (const std::exception& e) {
        return Status(ErrorCode::SchemaError, std::string("bad job manifest: ") + e.what(), SourcePosition{path});
    }
    if (job.shards == 0 || job.shards > kMaxShards || job.shardSizes.size() != job.shards)
        return Status(ErrorCode::SchemaError, "shards and shard_records disagree", SourcePosition{path, 0, 0, -1, "shard_records"});
    return job;
}

std::string slurmJobScript(const SlurmJob& job)
{
    std::string cmd = shellQuote(job.kwb) + " verify";
    for (const auto& in : job.inputs) cmd += " " + shellQuote(in);
    cmd += " --shard \"$task/" + std::to_string(job.shards) + "\" --out " + shellQuote(job.dir) + "/part-$task.jsonl";
    for (const auto& a : job.verifyArgs) cmd += " " + shellQuote(a);
    const std::string state = shellQuote(job.dir) + "/task-$task.state";
    std::string s;
    s += "#!/bin/sh\n";
    s += "# Written by kwb slurm submit: array task I verifies shard I of " + std::to_string(job.shards) + ".\n";
    s += "#SBATCH --job-name=kwb-verify\n";
    s += "#SBATCH --gres=" + job.gres + "\n";
    s += "#SBATCH --ntasks=1\n";
    s += "#SBATCH --output=" + job.dir + "/task-%a.log\n";
    s += "#SBATCH --open-mode=append\n";
    s += "set -u\n";
    s += "task=${SLURM_ARRAY_TASK_ID:?kwb slurm: not an array task}\n";
    s += "node=${SLURMD_NODENAME:-$(hostname)}\n";
    s += "where=\"${SLURM_ARRAY_JOB_ID}_$task $node\"\n";
    s += "echo \"running $where\" > " + state + ".tmp && mv " + state + ".tmp " + state + "\n";
    s += "echo \"kwb slurm: task $task, job ${SLURM_ARRAY_JOB_ID}, on $node, CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-}\"\n";
    s += "# NVLink multicast off, for the runner and whatever it starts.\n";
    s += "export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1\n";
    // In the background with TERM passed on: scancel signals this shell only, and kwb
    // verify must stop its runner (its own process group, out of Slurm's reach) itself.
    s += cmd + " &\n";
    s += "child=$!\n";
    s += "trap 'kill -TERM $child 2>/dev/null' TERM INT\n";
    s += "wait $child\n";
    s += "rc=$?\n";
    s += "while kill -0 $child 2>/dev/null; do wait $child; rc=$?; done\n";
    s += "echo \"exit $rc $where\" > " + state + ".tmp && mv " + state + ".tmp " + state + "\n";
    s += "exit $rc\n";
    return s;
}

TaskStateFile readTaskState(const std::string& path)
{
    TaskStateFile st;
    std::ifstream f(path);
    std::string word;
    if (!(f >> word)) return st;
    st.present = true;
    if (word == "exit") {
        st.finished = true;
        f >> st.exitCode;
    }
    f >> st.jobTask >> st.host;
    return st;
}

std::uint64_t countPartRecords(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    std::uint64_t n = 0;
    std::string line;
    while (std::getline(f, line))
        if (!f.eof() && line.find_first_not_of(" \t\r") != std::string::npos) ++n;
    return n;
}

Result<std::uint64_t> mergeSlurmParts(const SlurmJob& job, const std::string& out)
{
    KWB_ASSIGN_OR_RETURN(std::vector<std::string> order, inputRecordOrder(job.inputs));
    std::vector<ShardPart> parts;
    for (std::uint32_t i = 0; i < job.shards; ++i) {
        ShardPart part;
        part.path = job.partPath(i);
        std::error_code ec;
        if (!std::filesystem::exists(part.path, ec))
            return Status(ErrorCode::NotFound, "shard " + std::to_string(i) + " has no output yet (see " + job.logPath(i) + ")",
                SourcePosition{part.path});
        KWB_ASSIGN_OR_RETURN(part.lines, readRecordLines(part.path));
        parts.push_back(std::move(part));
    }
    KWB_ASSIGN_OR_RETURN(std::string text, mergeShardParts(order, parts));
    KWB_RETURN_IF_ERROR(writeFileAtomically(out, text));
    return static_cast<std::uint64_t>(order.size());
}

std::string taskListText(const std::vector<std::uint32_t>& tasks)
{
    std::string s;
    for (std::size_t i = 0; i < tasks.size();) {
        std::size_t j = i;
        while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
        s += (s.empty() ? "" : ",") + std::to_string(tasks[i]);
        if (j > i) s += "-" + std::to_string(tasks[j]);
        i = j + 1;
    }
    return s;
}

} // namespace kwb
