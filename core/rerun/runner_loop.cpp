#include "rerun/runner_loop.h"

#include <cerrno>
#include <csignal>
#include <string>

#include <unistd.h>

namespace kwb {

namespace {

constexpr std::size_t kMaxRequestBytes = std::size_t{64} << 20;

bool writeAll(int fd, const std::string& text)
{
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

} // namespace

int protectProtocolOutput()
{
    const int fd = ::dup(STDOUT_FILENO);
    if (fd < 0) return -1;
    // Whatever candidate code prints to stdout now lands on stderr.
    if (::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return -1;
    return fd;
}

int serveRunner(Executor& executor, int inFd, int outFd)
{
    std::signal(SIGPIPE, SIG_IGN); // a vanished parent is a write error, not a signal
    std::string buffer;
    char chunk[65536];
    bool eof = false;
    while (true) {
        std::size_t nl = buffer.find('\n');
        while (nl == std::string::npos && !eof) {
            if (buffer.size() > kMaxRequestBytes) {
                if (!writeAll(outFd, encodeMessage(ErrorMessage{"", "request line longer than 64 MiB"}))) return 1;
                buffer.clear();
            }
            const ssize_t n = ::read(inFd, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                eof = true;
                break;
            }
            const std::size_t before = buffer.size();
            buffer.append(chunk, static_cast<std::size_t>(n));
            nl = buffer.find('\n', before);
        }
        if (nl == std::string::npos) {
            if (buffer.find_first_not_of(" \t\r\n") == std::string::npos) return 0;
            nl = buffer.size(); // last line without a newline
        }
        const std::string line = buffer.substr(0, nl);
        buffer.erase(0, nl < buffer.size() ? nl + 1 : nl);
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;

        auto message = decodeMessage(line);
        if (!message) {
            if (!writeAll(outFd, encodeMessage(ErrorMessage{"", message.status().toString()}))) return 1;
            continue;
        }
        if (std::holds_alternative<ShutdownRequest>(*message)) return 0;
        if (const auto* hello = std::get_if<HelloRequest>(&*message)) {
            auto caps = executor.capabilities();
            const std::string reply = caps ? [&] {
                Capabilities c = *caps;
                c.id = hello->id;
                return encodeMessage(c);
            }()
                                           : encodeMessage(ErrorMessage{hello->id, caps.status().toString()});
            if (!writeAll(outFd, reply)) return 1;
            continue;
        }
        if (const auto* request = std::get_if<RerunRequest>(&*message)) {
            bool pipeOk = true;
            TaskContext ctx;
            ctx.progress = [&](const Progress& p) {
                if (pipeOk) pipeOk = writeAll(outFd, encodeMessage(ProgressMessage{request->id, p.stage, p.done, p.total}));
            };
            auto result = executor.execute(*request, ctx);
            if (!pipeOk) return 1;
            if (!result) {
                if (!writeAll(outFd, encodeMessage(ErrorMessage{request->id, result.status().toString()}))) return 1;
                continue;
            }
            RerunResult r = std::move(*result);
            r.id = request->id;
            if (!writeAll(outFd, encodeMessage(r))) return 1;
            if (r.fatal) return kRunnerExitFatal;
            continue;
        }
        if (!writeAll(outFd, encodeMessage(ErrorMessage{"", "a runner only serves hello, rerun and shutdown"}))) return 1;
    }
}

} // namespace kwb
