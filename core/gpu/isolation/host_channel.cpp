#include "gpu/isolation/host_channel.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace kwb::gpu {

namespace {

using Clock = std::chrono::steady_clock;

// Reads exactly n bytes before the deadline.
Status readExactly(int fd, char* out, std::size_t n, Clock::time_point deadline, bool forever)
{
    std::size_t got = 0;
    while (got < n) {
        int waitMs = -1;
        if (!forever) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left <= 0) return Status(ErrorCode::Timeout, "the candidate host did not answer in time");
            waitMs = static_cast<int>(std::min<long long>(left, 1 << 30));
        }
        pollfd p{fd, POLLIN, 0};
        const int rc = ::poll(&p, 1, waitMs);
        if (rc < 0) {
            if (errno == EINTR) continue;
            return Status(ErrorCode::IoError, std::string("poll: ") + std::strerror(errno));
        }
        if (rc == 0) continue;
        const ssize_t r = ::read(fd, out + got, n - got);
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return Status(ErrorCode::IoError, std::string("read: ") + std::strerror(errno));
        }
        if (r == 0) return Status(ErrorCode::IoError, "the candidate host closed its channel");
        got += static_cast<std::size_t>(r);
    }
    return Status::ok();
}

} // namespace

Status writeFrame(int fd, const nlohmann::json& message)
{
    const std::string text = message.dump();
    if (text.size() > kMaxHostFrameBytes) return Status(ErrorCode::InvalidArgument, "frame too large");
    std::string frame(4, '\0');
    const auto n = static_cast<std::uint32_t>(text.size());
    for (int i = 0; i < 4; ++i) frame[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
    frame += text;
    std::size_t put = 0;
    while (put < frame.size()) {
        const ssize_t w = ::write(fd, frame.data() + put, frame.size() - put);
        if (w < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return Status(ErrorCode::IoError, std::string("write to the candidate host channel: ") + std::strerror(errno));
        }
        put += static_cast<std::size_t>(w);
    }
    return Status::ok();
}

Result<nlohmann::json> readFrame(int fd, double timeoutS)
{
    const bool forever = timeoutS < 0;
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(forever ? 0.0 : timeoutS));
    unsigned char len[4];
    KWB_RETURN_IF_ERROR(readExactly(fd, reinterpret_cast<char*>(len), 4, deadline, forever));
    const std::uint32_t n = len[0] | (len[1] << 8) | (len[2] << 16) | (static_cast<std::uint32_t>(len[3]) << 24);
    if (n == 0 || n > kMaxHostFrameBytes)
        return Status(ErrorCode::ParseError, "frame length " + std::to_string(n) + " out of range (1.." +
                                                 std::to_string(kMaxHostFrameBytes) + ")");
    std::string text(n, '\0');
    KWB_RETURN_IF_ERROR(readExactly(fd, text.data(), n, deadline, forever));
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return Status(ErrorCode::ParseError, "frame is not a JSON object: " + text.substr(0, 80));
    return j;
}

} // namespace kwb::gpu
