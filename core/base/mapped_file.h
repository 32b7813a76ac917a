#pragma once
// Read-only memory mapping of a whole file. Move-only; unmaps on destruction.
#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"

namespace kwb {

class MappedFile {
public:
    MappedFile() = default;
    ~MappedFile();
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    // populate: fault every page in up front (the caller reads all of it and keeps
    // it resident); otherwise pages come in on first touch.
    static Result<MappedFile> open(const std::string& path, bool populate = false);

    std::string_view data() const { return {m_data, m_size}; }
    std::size_t size() const { return m_size; }
    // Bytes readable from data(): the size rounded up to the page, whose tail
    // the kernel fills with zeros. Parsers that over-read use the slack.
    std::size_t readableSize() const;
    const std::string& path() const { return m_path; }

private:
    void reset();
    const char* m_data = nullptr;
    std::size_t m_size = 0;
    std::string m_path;
};

// Whole-file read into memory; transparently inflates gzip (by magic bytes).
Result<std::string> readFileContents(const std::string& path);

// True when the bytes start with the gzip magic number.
bool looksGzipped(std::string_view bytes);

// Line and column (1-based) of a byte offset, for error messages.
void lineColumnOf(std::string_view text, std::size_t offset, std::int64_t& line, std::int64_t& column);

} // namespace kwb
