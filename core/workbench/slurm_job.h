#pragma once
// A `kwb verify` batch as a Slurm job array: the job folder that holds it.
//
//   OUT.slurm/job.json        the manifest (kwb.slurm/1): inputs, shard count,
//                             verify options, records per shard, and every
//                             submission's array job id with its task list
//   OUT.slurm/verify.sbatch   the job script (one shard per array task)
//   OUT.slurm/part-I.jsonl    task I's output (kwb verify --shard I/N; resumable)
//   OUT.slurm/task-I.log      its stdout and stderr (appended across resubmits)
//   OUT.slurm/task-I.state    "running JOB_TASK HOST" / "exit RC JOB_TASK HOST"
//
// Without slurmdbd there is no sacct: once a task leaves the queue, the state
// file and the part file are the truth. Pure file work here; slurm_array.h drives Slurm.
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace kwb {

inline constexpr const char* kSlurmJobSchema = "kwb.slurm/1";

struct SlurmSubmission {
    std::string jobId;                 // the array's job id (sbatch --parsable)
    std::vector<std::uint32_t> tasks;  // the shards it runs
    std::string submittedAt;           // UTC, ISO 8601
};

struct SlurmJob {
    std::string dir;                      // the job folder (absolute)
    std::string out;                      // where merge writes (absolute)
    std::vector<std::string> inputs;      // record files (absolute), in the order given
    std::uint32_t shards = 1;
    std::vector<std::string> verifyArgs;  // extra options for every task's kwb verify
    std::vector<std::string> sbatchArgs;  // extra sbatch options (--partition=…, --time=…)
    std::string gres = "gpu:1";
    std::string kwb;                      // the kwb the tasks run (absolute)
    std::vector<std::uint64_t> shardSizes; // records per shard
    std::vector<SlurmSubmission> submissions;

    std::string manifestPath() const { return dir + "/job.json"; }
    std::string scriptPath() const { return dir + "/verify.sbatch"; }
    std::string partPath(std::uint32_t task) const;
    std::string logPath(std::uint32_t task) const;
    std::string statePath(std::uint32_t task) const;
};

// The default job folder of an output: "OUT.slurm" beside it.
std::string defaultJobDir(const std::string& out);

Status writeSlurmJob(const SlurmJob& job);              // job.json, atomically
Result<SlurmJob> readSlurmJob(const std::string& dir);  // errors name job.json and the member

// The sbatch script: array task I runs `kwb verify INPUTS --shard I/N --out
// part-I.jsonl VERIFY_ARGS` with NVLink multicast off, writing its state file
// before and after. Paths are quoted for the shell.
std::string slurmJobScript(const SlurmJob& job);

// What a task's state file says.
struct TaskStateFile {
    bool present = false;
    bool finished = false; // "exit …" rather than "running …"
    int exitCode = -1;
    std::string jobTask;   // "1234_5"
    std::string host;
};
TaskStateFile readTaskState(const std::string& path);

// Records written so far in a part file (complete lines); 0 when absent.
std::uint64_t countPartRecords(const std::string& path);

// Merges the parts in input order into job.out (atomically); the error names
// the part and record when one is missing, doubled or out of place.
// Returns the number of records written.
Result<std::uint64_t> mergeSlurmParts(const SlurmJob& job, const std::string& out);

// "0-3,5,7-8" <-> {0,1,2,3,5,7,8}
std::string taskListText(const std::vector<std::uint32_t>& tasks);

} // namespace kwb
