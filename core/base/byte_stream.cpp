#include "base/byte_stream.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kwb {

Result<std::size_t> MemoryStream::read(char* dst, std::size_t capacity)
{
    const std::size_t n = std::min(capacity, m_data.size() - m_pos);
    if (n) std::memcpy(dst, m_data.data() + m_pos, n);
    m_pos += n;
    return n;
}

FileStream::~FileStream()
{
    if (m_fd >= 0) ::close(m_fd);
}

Status FileStream::open(const std::string& path)
{
    m_path = path;
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0) return Status(ErrorCode::IoError, std::string("cannot open: ") + std::strerror(errno), SourcePosition{path});
    struct stat st {};
    if (::fstat(m_fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return Status(ErrorCode::IoError, "is a directory", SourcePosition{path});
        m_total = static_cast<std::uint64_t>(st.st_size);
    }
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(m_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    return {};
}

Result<std::size_t> FileStream::read(char* dst, std::size_t capacity)
{
    for (;;) {
        const ssize_t n = ::read(m_fd, dst, capacity);
        if (n >= 0) {
            m_consumed += static_cast<std::uint64_t>(n);
            return static_cast<std::size_t>(n);
        }
        if (errno == EINTR) continue;
        SourcePosition where{m_path};
        where.offset = static_cast<std::int64_t>(m_consumed);
        return Status(ErrorCode::IoError, std::string("read failed: ") + std::strerror(errno), where);
    }
}

GzipStream::GzipStream(std::unique_ptr<ByteStream> raw, std::string path, const InputLimits& limits)
    : m_raw(std::move(raw)), m_path(std::move(path)), m_limits(limits), m_in(1u << 20)
{
    m_ok = ::inflateInit2(&m_z, 15 + 32) == Z_OK;
}

GzipStream::~GzipStream()
{
    ::inflateEnd(&m_z);
}

Status GzipStream::error(const std::string& reason) const
{
    SourcePosition where{m_path};
    where.offset = static_cast<std::int64_t>(rawConsumed());
    return Status(ErrorCode::ParseError,
        reason + " (at compressed byte " + std::to_string(rawConsumed()) + ", after " + std::to_string(m_out) + " inflated bytes)",
        where);
}

// Keeps the unread input (at most a byte or two) and appends fresh input after it.
Status GzipStream::refill()
{
    const std::size_t keep = m_z.avail_in;
    if (keep) std::memmove(m_in.data(), m_z.next_in, keep);
    KWB_ASSIGN_OR_RETURN(std::size_t n, m_raw->read(m_in.data() + keep, m_in.size() - keep));
    if (n == 0) m_rawEof = true;
    m_z.next_in = reinterpret_cast<Bytef*>(m_in.data());
    m_z.avail_in = static_cast<uInt>(keep + n);
    return {};
}

// Between members: zero padding is skipped, a gzip magic starts the next
// member, end of input ends the stream, anything else is an error.
Status GzipStream::afterMember(bool& more)
{
    for (;;) {
        while (m_z.avail_in > 0 && *m_z.next_in == 0) {
            ++m_z.next_in;
            --m_z.avail_in;
            m_finished = true; // padding: no member may follow it
        }
        if (m_z.avail_in == 0) {
            if (m_rawEof) {
                more = false;
                return {};
            }
            KWB_RETURN_IF_ERROR(refill());
            continue;
        }
        if (m_z.avail_in < 2 && !m_rawEof) {
            KWB_RETURN_IF_ERROR(refill());
            continue;
        }
        if (!m_finished && m_z.avail_in >= 2 && m_z.next_in[0] == 0x1f && m_z.next_in[1] == 0x8b) {
            ::inflateReset(&m_z);
            m_inMember = true;
            more = true;
            return {};
        }
        return error("unexpected bytes after the end of the gzip data (neither another gzip member nor zero padding)");
    }
}

Status GzipStream::checkLimits() const
{
    if (m_out > m_limits.maxInflatedBytes)
        return error("gzip data inflates past " + describeByteLimit(m_limits.maxInflatedBytes, "KWB_MAX_INFLATED_MB"));
    const std::uint64_t raw = std::max<std::uint64_t>(rawConsumed(), 1);
    if (m_out > (16ull << 20) && m_out / raw > m_limits.maxInflateRatio)
        return error("gzip data inflates more than " + std::to_string(m_limits.maxInflateRatio)
            + " times its compressed size (a decompression bomb?); the limit is KWB_MAX_INFLATE_RATIO");
    return {};
}

Result<std::size_t> GzipStream::read(char* dst, std::size_t capacity)
{
    if (!m_ok) return Status(ErrorCode::Internal, "zlib initialisation failed", SourcePosition{m_path});
    m_z.next_out = reinterpret_cast<Bytef*>(dst);
    m_z.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, 1u << 30));
    const uInt wanted = m_z.avail_out;
    while (m_z.avail_out == wanted) {
        if (!m_inMember) {
            bool more = false;
            KWB_RETURN_IF_ERROR(afterMember(more));
            if (!more) break;
        }
        if (m_z.avail_in == 0) {
            if (m_rawEof) return error("gzip stream is truncated (ends before its end marker)");
            KWB_RETURN_IF_ERROR(refill());
            continue;
        }
        const int rc = ::inflate(&m_z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            m_inMember = false;
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return error(std::string("gzip stream is corrupt: ") + (m_z.msg ? m_z.msg : "inflate failed"));
    }
    const std::size_t produced = wanted - m_z.avail_out;
    m_out += produced;
    KWB_RETURN_IF_ERROR(checkLimits());
    return produced;
}

Result<std::string> readAll(ByteStream& in)
{
    std::string out;
    std::size_t used = 0;
    for (;;) {
        if (out.size() - used < (1u << 20)) out.resize(std::max<std::size_t>(out.size() * 2, used + (4u << 20)));
        KWB_ASSIGN_OR_RETURN(std::size_t n, in.read(out.data() + used, out.size() - used));
        if (n == 0) break;
        used += n;
    }
    out.resize(used);
    return out;
}

} // namespace kwb
