#include "workbench/slurm_array.h"

#include <ctime>
#include <filesystem>
#include <map>

#include "workbench/child_command.h"
#include "workbench/shard.h"

namespace kwb {

namespace fs = std::filesystem;

namespace {

std::string utcNow()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
    return s;
}

} // namespace

Result<SlurmJob> prepareSlurmJob(const std::vector<std::string>& inputs, const std::string& out, const std::string& dir,
    std::uint32_t shards, const std::string& kwb, const std::vector<std::string>& verifyArgs,
    const std::vector<std::string>& sbatchArgs, const std::string& gres)
{
    if (shards == 0 || shards > kMaxShards)
        return Status(ErrorCode::InvalidArgument, "the shard count must be between 1 and " + std::to_string(kMaxShards));
    SlurmJob job;
    std::error_code ec;
    job.dir = fs::absolute(dir, ec).lexically_normal().string();
    while (job.dir.size() > 1 && job.dir.back() == '/') job.dir.pop_back();
    job.out = fs::absolute(out, ec).lexically_normal().string();
    for (const auto& in : inputs) job.inputs.push_back(fs::absolute(in, ec).lexically_normal().string());
    job.shards = shards;
    job.kwb = kwb;
    job.verifyArgs = verifyArgs;
    job.sbatchArgs = sbatchArgs;
    job.gres = gres;
    if (fs::exists(job.manifestPath(), ec))
        return Status(ErrorCode::InvalidArgument,
            "a job is already prepared here (use kwb slurm status/resubmit/merge, or remove the folder)", SourcePosition{job.manifestPath()});
    KWB_ASSIGN_OR_RETURN(std::vector<std::string> order, inputRecordOrder(job.inputs));
    if (order.empty()) return Status(ErrorCode::InvalidArgument, "the inputs hold no records");
    job.shardSizes.assign(shards, 0);
    for (const auto& id : order) ++job.shardSizes[shardOf(id, shards)];
    fs::create_directories(job.dir, ec);
    if (ec) return Status(ErrorCode::IoError, "cannot create the job folder: " + ec.message(), SourcePosition{job.dir});
    KWB_RETURN_IF_ERROR(writeFileAtomically(job.scriptPath(), slurmJobScript(job)));
    fs::permissions(job.scriptPath(), fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read, ec);
    KWB_RETURN_IF_ERROR(writeSlurmJob(job));
    return job;
}

Result<std::string> submitSlurmTasks(SlurmJob& job, const std::vector<std::uint32_t>& tasks)
{
    if (tasks.empty()) return Status(ErrorCode::InvalidArgument, "no tasks to submit");
    std::vector<std::string> argv{"sbatch", "--parsable", "--array=" + taskListText(tasks), "--job-name=kwb-verify",
        "--gres=" + job.gres, "--output=" + job.dir + "/task-%a.log", "--open-mode=append", "--chdir=" + job.dir};
    argv.insert(argv.end(), job.sbatchArgs.begin(), job.sbatchArgs.end());
    argv.push_back(job.scriptPath());
    KWB_ASSIGN_OR_RETURN(CommandOutput o, runCommand(argv, 120.0));
    const std::string reply = trimmed(o.out);
    if (o.exitCode != 0 || reply.empty())
        return Status(ErrorCode::IoError, "'" + commandLineText(argv) + "' failed (status " + std::to_string(o.exitCode)
            + "): " + trimmed(o.err.empty() ? o.out : o.err));
    // --parsable: "JOBID" or "JOBID;CLUSTER"
    const std::string jobId = reply.substr(0, reply.find(';'));
    job.submissions.push_back({jobId, tasks, utcNow()});
    KWB_RETURN_IF_ERROR(writeSlurmJob(job));
    return jobId;
}

std::vector<QueuedTask> parseSqueue(const std::string& text)
{
    std::vector<QueuedTask> tasks;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t nl = std::min(text.find('\n', pos), text.size());
        const std::string line = text.substr(pos, nl - pos);
        pos = nl + 1;
        std::vector<std::string> f;
        std::size_t a = 0;
        while (true) {
            const std::size_t bar = line.find('|', a);
            f.push_back(line.substr(a, bar == std::string::npos ? std::string::npos : bar - a));
            if (bar == std::string::npos) break;
            a = bar + 1;
        }
        // Non-array jobs show "N/A" as the task id: not ours.
        if (f.size() < 3 || f[1].empty() || f[1].find_first_not_of("0123456789") != std::string::npos) continue;
        QueuedTask t;
        t.jobId = f[0];
        t.task = static_cast<std::uint32_t>(std::stoul(f[1]));
        t.state = f[2];
        if (f.size() > 3) t.node = f[3];
        if (f.size() > 4) t.reason = f[4];
        tasks.push_back(std::move(t));
    }
    return tasks;
}

Result<std::vector<QueuedTask>> querySlurmQueue()
{
    const std::vector<std::string> argv{"squeue", "-h", "-r", "-o", "%F|%K|%T|%N|%r"};
    KWB_ASSIGN_OR_RETURN(CommandOutput o, runCommand(argv, 60.0));
    if (o.exitCode != 0)
        return Status(ErrorCode::IoError, "'" + commandLineText(argv) + "' failed (status " + std::to_string(o.exitCode)
            + "): " + trimmed(o.err));
    return parseSqueue(o.out);
}

const char* taskStateName(TaskState s)
{
    switch (s) {
    case TaskState::Pending: return "pending";
    case TaskState::Running: return "running";
    case TaskState::Done: return "done";
    case TaskState::Failed: return "failed";
    case TaskState::Missing: return "missing";
    }
    return "?";
}

std::vector<TaskStatus> slurmTaskStatus(const SlurmJob& job, const std::vector<QueuedTask>& queue)
{
    // The latest submission of a task is the one that counts in the queue.
    std::map<std::uint32_t, std::string> latestJob;
    for (const auto& s : job.submissions)
        for (auto t : s.tasks) latestJob[t] = s.jobId;
    std::vector<TaskStatus> out;
    for (std::uint32_t i = 0; i < job.shards; ++i) {
        TaskStatus st;
        st.task = i;
        st.expected = job.shardSizes[i];
        st.records = countPartRecords(job.partPath(i));
        const auto latest = latestJob.find(i);
        const QueuedTask* queued = nullptr;
        if (latest != latestJob.end())
            for (const auto& q : queue)
                if (q.jobId == latest->second && q.task == i) queued = &q;
        const TaskStateFile file = readTaskState(job.statePath(i));
        if (queued) {
            st.jobTask = queued->jobId + "_" + std::to_string(i);
            st.node = queued->node;
            st.state = queued->state == "PENDING" ? TaskState::Pending : TaskState::Running;
            if (st.state == TaskState::Pending && !queued->reason.empty() && queued->reason != "None") st.detail = queued->reason;
        } else if (!file.present) {
            st.state = TaskState::Missing;
            st.detail = latest == latestJob.end() ? "never submitted" : "left the queue without running (cancelled while pending?)";
        } else {
            st.jobTask = file.jobTask;
            st.node = file.host;
            if (!file.finished) {
                st.state = TaskState::Failed;
                st.detail = "stopped without an exit status (killed, out of time, or its node failed)";
            } else {
                st.exitCode = file.exitCode;
                st.state = file.exitCode == 0 ? TaskState::Done : TaskState::Failed;
                if (file.exitCode != 0) st.detail = "kwb verify exited with status " + std::to_string(file.exitCode);
            }
        }
        if (st.state == TaskState::Failed || st.state == TaskState::Missing) {
            std::error_code ec;
            if (fs::exists(job.logPath(i), ec)) st.detail += "; log: " + job.logPath(i);
        }
        out.push_back(std::move(st));
    }
    return out;
}

ArrayProgress summarize(const std::vector<TaskStatus>& tasks)
{
    ArrayProgress p;
    for (const auto& t : tasks) {
        switch (t.state) {
        case TaskState::Pending: ++p.pending; break;
        case TaskState::Running: ++p.running; break;
        case TaskState::Done: ++p.done; break;
        case TaskState::Failed: ++p.failed; break;
        case TaskState::Missing: ++p.missing; break;
        }
        p.records += std::min(t.records, t.expected);
        p.expected += t.expected;
    }
    return p;
}

std::string progressLine(const ArrayProgress& p, std::uint32_t tasks)
{
    std::string s = std::to_string(tasks) + (tasks == 1 ? " task: " : " tasks: ") + std::to_string(p.done) + " done";
    if (p.running) s += ", " + std::to_string(p.running) + " running";
    if (p.pending) s += ", " + std::to_string(p.pending) + " pending";
    if (p.failed) s += ", " + std::to_string(p.failed) + " failed";
    if (p.missing) s += ", " + std::to_string(p.missing) + " missing";
    return s + "; " + std::to_string(p.records) + "/" + std::to_string(p.expected) + " records";
}

std::vector<std::uint32_t> tasksToResubmit(const std::vector<TaskStatus>& tasks)
{
    std::vector<std::uint32_t> out;
    for (const auto& t : tasks)
        if (t.state == TaskState::Failed || t.state == TaskState::Missing) out.push_back(t.task);
    return out;
}

} // namespace kwb
