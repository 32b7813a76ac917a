#pragma once
// The candidate host's command channel: one JSON object per frame, a frame
// being a 4-byte little-endian length and that many bytes of JSON text, over
// a pipe pair private to the runner and its child. The runner validates every
// frame it reads (length, JSON, the reply's members and types): a child that
// writes anything else into the channel is a protocol violation, recorded as
// tampering (the candidate shares the child's process and may write there).
#include <nlohmann/json.hpp>

#include <string>

#include "base/status.h"

namespace kwb::gpu {

inline constexpr std::size_t kMaxHostFrameBytes = 4u << 20;

// Writes one frame; retries on EINTR and short writes.
Status writeFrame(int fd, const nlohmann::json& message);

// Reads one frame, waiting at most `timeoutS` seconds (< 0 = forever).
// ErrorCode::Timeout when the deadline passes, IoError on end of file (the
// peer exited), ParseError for a frame that is not a JSON object of at most
// kMaxHostFrameBytes.
Result<nlohmann::json> readFrame(int fd, double timeoutS);

} // namespace kwb::gpu
