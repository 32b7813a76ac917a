#pragma once
// Driving Slurm for a job folder (slurm_job.h): submit the array, read the
// queue, tell each task's state, resubmit only the tasks that failed or never
// ran. Commands run through runCommand (sbatch, squeue from PATH; SLURM_CONF
// and the other SLURM_* variables are the caller's). Blocking; any thread.
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "workbench/slurm_job.h"

namespace kwb {

// Creates the job folder for `inputs` (absolute paths are taken), counts the
// records per shard, writes job.json and verify.sbatch. Does not submit.
Result<SlurmJob> prepareSlurmJob(const std::vector<std::string>& inputs, const std::string& out, const std::string& dir,
    std::uint32_t shards, const std::string& kwb, const std::vector<std::string>& verifyArgs,
    const std::vector<std::string>& sbatchArgs, const std::string& gres);

// `sbatch --parsable --array=TASKS … verify.sbatch`; records the submission in
// job.json. Errors quote sbatch's message. Returns the array's job id.
Result<std::string> submitSlurmTasks(SlurmJob& job, const std::vector<std::uint32_t>& tasks);

// One line of `squeue -h -r -o %F|%K|%T|%N|%r`.
struct QueuedTask {
    std::string jobId;   // the array's job id
    std::uint32_t task = 0;
    std::string state;   // PENDING, RUNNING, COMPLETING, …
    std::string node;
    std::string reason;
};
std::vector<QueuedTask> parseSqueue(const std::string& text);
Result<std::vector<QueuedTask>> querySlurmQueue();

enum class TaskState { Pending, Running, Done, Failed, Missing };
const char* taskStateName(TaskState s);

struct TaskStatus {
    std::uint32_t task = 0;
    TaskState state = TaskState::Missing;
    std::string jobTask;        // "1234_5" when known
    std::string node;
    int exitCode = -1;
    std::uint64_t records = 0;  // written so far
    std::uint64_t expected = 0; // in its shard
    std::string detail;         // why failed or missing
};

// Each task's state: queued (pending/running) by the queue; otherwise by its
// state file: "exit 0" done, another exit failed, "running" with nothing
// queued died (killed, out of time, node lost), no file missing.
std::vector<TaskStatus> slurmTaskStatus(const SlurmJob& job, const std::vector<QueuedTask>& queue);

struct ArrayProgress {
    std::uint32_t pending = 0, running = 0, done = 0, failed = 0, missing = 0;
    std::uint64_t records = 0, expected = 0;
    bool finished() const { return pending == 0 && running == 0; }
};
ArrayProgress summarize(const std::vector<TaskStatus>& tasks);
// "8 tasks: 5 done, 2 running, 1 pending; 40/64 records"
std::string progressLine(const ArrayProgress& p, std::uint32_t tasks);

// The tasks resubmit takes: failed or missing, not queued.
std::vector<std::uint32_t> tasksToResubmit(const std::vector<TaskStatus>& tasks);

} // namespace kwb
