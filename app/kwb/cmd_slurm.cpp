// kwb slurm: a `kwb verify` batch as a Slurm job array, one shard per task.
//   submit   prepare the job folder (OUT.slurm/) and sbatch the array
//   status   each task's state and the records written; --follow waits
//   resubmit sbatch only the tasks that failed or never ran
//   merge    the parts, in input order, into the file a local run writes
// Parsing and printing only: core/workbench/slurm_*.h does the work.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <unistd.h>

#include "arg_parser.h"
#include "commands.h"
#include "rerun_cli.h"
#include "workbench/slurm_array.h"
#include "workbench/slurm_job.h"

namespace kwb::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "kwb slurm submit RECORDS... --out FILE --shards N [options] [-- VERIFY OPTIONS]\n"
    "       kwb slurm status DIR [--follow]\n"
    "       kwb slurm resubmit DIR\n"
    "       kwb slurm merge DIR [--out FILE]";

int fail(const char* sub, const std::string& message)
{
    std::fprintf(stderr, "kwb slurm %s: %s\n", sub, message.c_str());
    return kExitErrors;
}

std::string selfPath()
{
    std::error_code ec;
    const auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("kwb") : p.string();
}

void printTasks(const std::vector<TaskStatus>& tasks, bool all)
{
    for (const auto& t : tasks) {
        if (!all && t.state != TaskState::Failed && t.state != TaskState::Missing) continue;
        std::printf("  task %-4u %-8s %6llu/%-6llu records%s%s%s%s\n", t.task, taskStateName(t.state),
            static_cast<unsigned long long>(t.records), static_cast<unsigned long long>(t.expected),
            t.jobTask.empty() ? "" : ("  " + t.jobTask).c_str(), t.node.empty() ? "" : (" on " + t.node).c_str(),
            t.detail.empty() ? "" : "  ", t.detail.c_str());
    }
}

int runSubmit(const Args& args)
{
    Args mine = args;
    Args verifyArgs;
    if (auto dd = std::find(mine.begin(), mine.end(), "--"); dd != mine.end()) {
        verifyArgs.assign(dd + 1, mine.end());
        mine.erase(dd, mine.end());
    }
    ArgParser p("slurm submit", "kwb slurm submit RECORDS... --out FILE --shards N [options] [-- VERIFY OPTIONS]",
        "Prepares a job folder (OUT.slurm/ unless --job-dir) and submits a Slurm job array\n"
        "with one task per shard: task I runs `kwb verify RECORDS --shard I/N --out\n"
        "DIR/part-I.jsonl VERIFY OPTIONS` on one GPU (--gres). The array's job id is kept in\n"
        "DIR/job.json. Follow it with `kwb slurm status DIR --follow`, resubmit what failed\n"
        "with `kwb slurm resubmit DIR`, and write FILE with `kwb slurm merge DIR`.");
    p.positional("RECORDS...", "record files or folders (as for kwb verify)");
    p.option("out", "FILE", "the merged output (what `kwb verify --out FILE` would write; required)");
    p.option("shards", "N", "number of shards, one array task each (required; at most 1001 under default Slurm limits)");
    p.option("job-dir", "DIR", "the job folder (default: FILE.slurm)");
    p.option("gres", "SPEC", "generic resources per task", "gpu:1");
    p.repeatedOption("sbatch", "ARG", "an extra sbatch option, e.g. --sbatch=--partition=gpu --sbatch=--time=2:00:00");
    p.option("kwb", "PATH", "the kwb the tasks run (default: this one)");
    p.flag("no-submit", "prepare the job folder and script only");
    if (!p.parse(mine)) return finishParse(p);
    if (p.positionals().empty() || !p.value("out") || !p.value("shards")) {
        std::fprintf(stderr, "kwb slurm submit: RECORDS, --out and --shards are required\n\n%s", p.help().c_str());
        return kExitUsage;
    }
    std::uint32_t shards = 0;
    try {
        std::size_t used = 0;
        const unsigned long v = std::stoul(*p.value("shards"), &used);
        if (used != p.value("shards")->size() || v == 0 || v > 100000) throw std::out_of_range("shards");
        shards = static_cast<std::uint32_t>(v);
    } catch (const std::exception&) {
        std::fprintf(stderr, "kwb slurm submit: --shards: invalid value '%s'\n", p.value("shards")->c_str());
        return kExitUsage;
    }
    // The tasks run this kwb unless told otherwise: it must be able to verify.
    if (!p.value("kwb"))
        if (auto code = gpuBuildCheck("slurm submit")) return *code;
    const std::string out = *p.value("out");
    const std::string dir = p.value("job-dir").value_or(defaultJobDir(out));
    std::error_code ec;
    const std::string kwbPath = p.value("kwb") ? fs::absolute(*p.value("kwb"), ec).string() : selfPath();
    auto job = prepareSlurmJob(p.positionals(), out, dir, shards, kwbPath, verifyArgs, p.values("sbatch"), *p.value("gres"));
    if (!job) return fail("submit", job.status().toString());
    std::printf("job folder %s: %u shards of ", job->dir.c_str(), shards);
    std::uint64_t total = 0;
    for (auto n : job->shardSizes) total += n;
    std::printf("%llu records\n", static_cast<unsigned long long>(total));
    if (p.isSet("no-submit")) {
        std::printf("not submitted; the script is %s\n", job->scriptPath().c_str());
        return kExitOk;
    }
    std::vector<std::uint32_t> all(shards);
    for (std::uint32_t i = 0; i < shards; ++i) all[i] = i;
    auto id = submitSlurmTasks(*job, all);
    if (!id) return fail("submit", id.status().toString());
    std::printf("submitted array job %s (tasks %s)\n", id->c_str(), taskListText(all).c_str());
    return kExitOk;
}

int runStatus(const Args& args)
{
    ArgParser p("slurm status", "kwb slurm status DIR [--follow]",
        "Each task's state (from squeue while queued, else from its state file: there is\n"
        "no sacct without slurmdbd) and the records its part holds. --follow polls until no\n"
        "task is pending or running, printing a line when the progress changes.");
    p.positional("DIR", "the job folder");
    p.flag("follow", "wait until every task has left the queue");
    p.option("interval", "SECONDS", "polling interval of --follow", "5");
    p.option("timeout", "SECONDS", "give up following after this long (0: never)", "0");
    p.flag("all", "list every task, not only the failed and missing ones");
    if (!p.parse(args)) return finishParse(p);
    if (p.positionals().size() != 1) {
        std::fprintf(stderr, "kwb slurm status: one job folder\n\n%s", p.help().c_str());
        return kExitUsage;
    }
    double interval = 5;
    double timeout = 0;
    try {
        interval = std::stod(*p.value("interval"));
        timeout = std::stod(*p.value("timeout"));
    } catch (const std::exception&) {
        std::fprintf(stderr, "kwb slurm status: --interval and --timeout take seconds\n");
        return kExitUsage;
    }
    if (!(interval > 0)) interval = 5;
    auto job = readSlurmJob(p.positionals()[0]);
    if (!job) return fail("status", job.status().toString());
    const auto start = std::chrono::steady_clock::now();
    std::string last;
    while (true) {
        auto queue = querySlurmQueue();
        if (!queue) return fail("status", queue.status().toString());
        const auto tasks = slurmTaskStatus(*job, *queue);
        const ArrayProgress progress = summarize(tasks);
        const std::string line = progressLine(progress, job->shards);
        if (!p.isSet("follow") || progress.finished()) {
            std::printf("%s: %s\n", job->dir.c_str(), line.c_str());
            printTasks(tasks, p.isSet("all"));
            if (!progress.finished()) return kExitOk;
            if (progress.failed + progress.missing > 0) {
                std::printf("resubmit the failed or missing tasks with: kwb slurm resubmit %s\n", job->dir.c_str());
                return kExitErrors;
            }
            std::printf("all tasks done; merge with: kwb slurm merge %s\n", job->dir.c_str());
            return kExitOk;
        }
        if (line != last) {
            std::printf("kwb slurm: %s\n", line.c_str());
            std::fflush(stdout);
            last = line;
        }
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (timeout > 0 && elapsed > timeout) {
            std::fprintf(stderr, "kwb slurm status: still running after %.0f s\n", timeout);
            return kExitErrors;
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(interval));
    }
}

int runResubmit(const Args& args)
{
    ArgParser p("slurm resubmit", "kwb slurm resubmit DIR",
        "Submits again only the tasks that failed or never ran (none that is queued or\n"
        "done). Each resumes its part: records already written are not re-run.");
    p.positional("DIR", "the job folder");
    if (!p.parse(args)) return finishParse(p);
    if (p.positionals().size() != 1) {
        std::fprintf(stderr, "kwb slurm resubmit: one job folder\n\n%s", p.help().c_str());
        return kExitUsage;
    }
    auto job = readSlurmJob(p.positionals()[0]);
    if (!job) return fail("resubmit", job.status().toString());
    auto queue = querySlurmQueue();
    if (!queue) return fail("resubmit", queue.status().toString());
    const auto tasks = slurmTaskStatus(*job, *queue);
    const auto again = tasksToResubmit(tasks);
    if (again.empty()) {
        std::printf("nothing to resubmit: %s\n", progressLine(summarize(tasks), job->shards).c_str());
        return kExitOk;
    }
    auto id = submitSlurmTasks(*job, again);
    if (!id) return fail("resubmit", id.status().toString());
    std::printf("resubmitted tasks %s as array job %s\n", taskListText(again).c_str(), id->c_str());
    return kExitOk;
}

int runMerge(const Args& args)
{
    ArgParser p("slurm merge", "kwb slurm merge DIR [--out FILE]",
        "Writes the parts' records in input order (files as given, records in file order)\n"
        "into FILE (default: the --out given at submit): the file one local `kwb verify`\n"
        "writes. Refuses while a shard lacks records, or a record is doubled or in the wrong part.");
    p.positional("DIR", "the job folder");
    p.option("out", "FILE", "where to write (default: the job's output)");
    if (!p.parse(args)) return finishParse(p);
    if (p.positionals().size() != 1) {
        std::fprintf(stderr, "kwb slurm merge: one job folder\n\n%s", p.help().c_str());
        return kExitUsage;
    }
    auto job = readSlurmJob(p.positionals()[0]);
    if (!job) return fail("merge", job.status().toString());
    const std::string out = p.value("out").value_or(job->out);
    auto n = mergeSlurmParts(*job, out);
    if (!n) return fail("merge", n.status().toString());
    std::printf("merged %llu records of %u shards into %s\n", static_cast<unsigned long long>(*n), job->shards, out.c_str());
    return kExitOk;
}

} // namespace

int runSlurm(const Args& args)
{
    const std::string sub = args.empty() ? std::string() : args[0];
    const Args rest = args.empty() ? Args{} : Args(args.begin() + 1, args.end());
    if (sub == "submit") return runSubmit(rest);
    if (sub == "status") return runStatus(rest);
    if (sub == "resubmit") return runResubmit(rest);
    if (sub == "merge") return runMerge(rest);
    const bool help = sub == "-h" || sub == "--help" || sub == "help";
    std::fprintf(help ? stdout : stderr,
        "%s%s\n\nA kwb verify batch as a Slurm job array (one shard per task); `kwb slurm SUB --help` for each.\n",
        help || sub.empty() ? "" : ("kwb slurm: unknown subcommand '" + sub + "'\n\n").c_str(), kUsage);
    return help ? kExitOk : kExitUsage;
}

} // namespace kwb::cli
