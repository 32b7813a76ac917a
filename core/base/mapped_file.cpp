#include "base/mapped_file.h"

#include "base/byte_stream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kwb {

MappedFile::~MappedFile()
{
    reset();
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_data(other.m_data), m_size(other.m_size), m_path(std::move(other.m_path))
{
    other.m_data = nullptr;
    other.m_size = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept
{
    if (this != &other) {
        reset();
        m_data = other.m_data;
        m_size = other.m_size;
        m_path = std::move(other.m_path);
        other.m_data = nullptr;
        other.m_size = 0;
    }
    return *this;
}

void MappedFile::reset()
{
    if (m_data && m_size) ::munmap(const_cast<char*>(m_data), m_size);
    m_data = nullptr;
    m_size = 0;
}

Result<MappedFile> MappedFile::open(const std::string& path, bool populate)
{
    SourcePosition where{path};
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status(ErrorCode::IoError, std::string("cannot open: ") + std::strerror(errno), where);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return Status(ErrorCode::IoError, std::string("cannot stat: ") + std::strerror(err), where);
    }
    if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        return Status(ErrorCode::IoError, "is a directory", where);
    }
    MappedFile file;
    file.m_path = path;
    file.m_size = static_cast<std::size_t>(st.st_size);
    if (file.m_size > 0) {
        // Faulting all pages in one call is much cheaper than one page fault per 4 KiB.
        void* p = ::mmap(nullptr, file.m_size, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            file.m_size = 0;
            return Status(ErrorCode::IoError, std::string("cannot map: ") + std::strerror(err), where);
        }
        ::madvise(p, file.m_size, MADV_SEQUENTIAL);
        file.m_data = static_cast<const char*>(p);
    }
    ::close(fd);
    return file;
}

std::size_t MappedFile::readableSize() const
{
    if (!m_data) return 0;
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return (m_size + page - 1) / page * page;
}

bool looksGzipped(std::string_view bytes)
{
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f
        && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

Result<std::string> readFileContents(const std::string& path)
{
    KWB_ASSIGN_OR_RETURN(MappedFile mapped, MappedFile::open(path));
    if (!looksGzipped(mapped.data())) return std::string(mapped.data());
    // The same bounded inflater as the streaming readers: size and ratio limits.
    GzipStream gz(std::make_unique<MemoryStream>(mapped.data()), path);
    return readAll(gz);
}

void lineColumnOf(std::string_view text, std::size_t offset, std::int64_t& line, std::int64_t& column)
{
    if (offset > text.size()) offset = text.size();
    line = 1;
    std::size_t lineStart = 0;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
        }
    }
    column = static_cast<std::int64_t>(offset - lineStart) + 1;
}

} // namespace kwb
