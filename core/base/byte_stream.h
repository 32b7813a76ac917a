#pragma once
// Byte streams that readers pull input from in chunks: memory (a mapping or
// a caller's buffer), a file descriptor, and gzip inflation over either.
// Inflation is bounded by InputLimits (total size and ratio), and a gzip file
// may end in zero padding (tape blocks, preallocated files); any other bytes
// after the last member are an error. Not thread-safe; one reader owns one.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <zlib.h>

#include "base/input_limits.h"
#include "base/status.h"

namespace kwb {

class ByteStream {
public:
    virtual ~ByteStream() = default;
    // Writes up to `capacity` bytes to dst; 0 means end of input.
    virtual Result<std::size_t> read(char* dst, std::size_t capacity) = 0;
    // Raw (compressed) input consumed and its total size, for progress.
    virtual std::uint64_t rawConsumed() const = 0;
    virtual std::uint64_t rawTotal() const = 0;
};

// Bytes the caller keeps alive for the stream's lifetime.
class MemoryStream final : public ByteStream {
public:
    explicit MemoryStream(std::string_view data) : m_data(data) {}
    Result<std::size_t> read(char* dst, std::size_t capacity) override;
    std::uint64_t rawConsumed() const override { return m_pos; }
    std::uint64_t rawTotal() const override { return m_data.size(); }

private:
    std::string_view m_data;
    std::size_t m_pos = 0;
};

// read(2) on a file opened by open().
class FileStream final : public ByteStream {
public:
    FileStream() = default;
    ~FileStream() override;
    FileStream(const FileStream&) = delete;
    FileStream& operator=(const FileStream&) = delete;
    Status open(const std::string& path);
    Result<std::size_t> read(char* dst, std::size_t capacity) override;
    std::uint64_t rawConsumed() const override { return m_consumed; }
    std::uint64_t rawTotal() const override { return m_total; }

private:
    std::string m_path;
    int m_fd = -1;
    std::uint64_t m_total = 0;
    std::uint64_t m_consumed = 0;
};

// Inflates gzip (several members allowed) chunk by chunk; `path` names the
// file in errors.
class GzipStream final : public ByteStream {
public:
    GzipStream(std::unique_ptr<ByteStream> raw, std::string path, const InputLimits& limits = inputLimits());
    ~GzipStream() override;
    GzipStream(const GzipStream&) = delete;
    GzipStream& operator=(const GzipStream&) = delete;
    Result<std::size_t> read(char* dst, std::size_t capacity) override;
    std::uint64_t rawConsumed() const override { return m_raw->rawConsumed() - m_z.avail_in; }
    std::uint64_t rawTotal() const override { return m_raw->rawTotal(); }
    std::uint64_t inflated() const { return m_out; }

private:
    Status error(const std::string& reason) const;
    Status refill();
    Status afterMember(bool& more);
    Status checkLimits() const;

    std::unique_ptr<ByteStream> m_raw;
    std::string m_path;
    InputLimits m_limits;
    std::vector<char> m_in;
    z_stream m_z{};
    bool m_ok = false;
    bool m_rawEof = false;
    bool m_inMember = true;  // false between members and after the last one
    bool m_finished = false; // no further member: only zero padding followed
    std::uint64_t m_out = 0;
};

// The whole stream in memory.
Result<std::string> readAll(ByteStream& in);

} // namespace kwb
