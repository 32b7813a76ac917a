#pragma once
// Importer for the KernelBench leaderboard's flat list (raw_data.json): one
// object per kernel with problem_id, level, model, code, torch_speedup,
// baseline and kernel times. The leaderboard lists only kernels that passed
// KernelBench's correctness check, so every record is "correct". Its
// problem_id counts from 0; problem.id is KernelBench's file number (id + 1),
// the raw value is kept as the unknown member "problem_id".
#include <string>
#include <string_view>

#include "records/record_set.h"

namespace kwb {

RecordSet importLeaderboard(std::string_view text, const std::string& fileName);
RecordSet loadLeaderboard(const std::string& path);

} // namespace kwb
