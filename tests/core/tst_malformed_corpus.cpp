// The malformed-input corpus (tests/data/malformed/expected.json): every file
// runs through the real `kwb` binary, as a user's script would, in a child
// process watched for time (30 s) and resident memory (2 GiB). A crash, a
// hang, a memory flood or an outcome other than the manifest's fails the case.
#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace {

using nlohmann::json;

constexpr double kTimeLimitSeconds = 30.0;
constexpr long kRssLimitKiB = 2L << 20; // 2 GiB

std::string corpusDir()
{
    return kwbtest::testData("malformed");
}

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct RunResult {
    int exitCode = -1;
    int signal = 0;
    std::string watchdog; // non-empty when the watchdog killed the child
    double seconds = 0;
    long peakRssKiB = 0;
    std::string out;
    std::string err;
};

long rssKiB(pid_t pid)
{
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
    return 0;
}

// Runs argv with extra environment, polling the child's RSS and run time.
RunResult runWatched(const std::vector<std::string>& argv, const json& env, const std::string& scratch,
    double timeLimit = kTimeLimitSeconds, long rssLimit = kRssLimitKiB)
{
    RunResult r;
    const std::string outPath = scratch + "/stdout.txt";
    const std::string errPath = scratch + "/stderr.txt";
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int o = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int e = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(o, 1);
        ::dup2(e, 2);
        for (auto it = env.begin(); it != env.end(); ++it) ::setenv(it.key().c_str(), it->get<std::string>().c_str(), 1);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    const auto start = std::chrono::steady_clock::now();
    int status = 0;
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (done == pid) break;
        const long rss = rssKiB(pid);
        r.peakRssKiB = std::max(r.peakRssKiB, rss);
        if (rss > rssLimit || r.seconds > timeLimit) {
            r.watchdog = rss > rssLimit ? "resident memory passed " + std::to_string(rssLimit / 1024) + " MiB"
                                        : "ran past " + std::to_string(static_cast<int>(timeLimit)) + " s";
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    r.out = readText(outPath);
    r.err = readText(errPath);
    return r;
}

std::string gzipMember(const std::string& data)
{
    z_stream z{};
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return {};
    std::string out(deflateBound(&z, static_cast<uLong>(data.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// Builds a generated input from its recipe (see the manifest's comment).
QString generate(const json& g, const std::string& dir, std::string& path)
{
    path = dir + "/" + g.at("name").get<std::string>();
    ::unlink(path.c_str());
    if (g.contains("sql")) {
        sqlite3* db = nullptr;
        if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return QStringLiteral("cannot create SQLite file");
        const std::string sql = readText(corpusDir() + "/" + g.at("sql").get<std::string>());
        char* msg = nullptr;
        const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg);
        QString err = rc == SQLITE_OK ? QString() : QString::fromUtf8(msg ? msg : "sqlite error");
        sqlite3_free(msg);
        sqlite3_close(db);
        return err;
    }
    std::ofstream out(path, std::ios::binary);
    const bool gz = g.value("gzip", false);
    for (const auto& part : g.at("parts")) {
        std::string content;
        const std::string text = part.at("text").get<std::string>();
        const auto repeat = part.value("repeat", 1);
        content.reserve(text.size() * static_cast<std::size_t>(repeat));
        for (int i = 0; i < repeat; ++i) content += text;
        if (gz) content = gzipMember(content);
        for (int t = 0; t < part.value("times", 1); ++t) out.write(content.data(), static_cast<std::streamsize>(content.size()));
    }
    if (g.contains("trailer")) out << g.at("trailer").get<std::string>();
    if (g.contains("zero_pad")) {
        const std::string zeros(g.at("zero_pad").get<std::size_t>(), '\0');
        out.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
    }
    out.close();
    if (g.contains("sparse_size") && ::truncate(path.c_str(), g.at("sparse_size").get<off_t>()) != 0)
        return QStringLiteral("cannot extend the sparse file");
    return {};
}

int countOccurrences(const std::string& text, const std::string& needle)
{
    int n = 0;
    for (std::size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size())) ++n;
    return n;
}

} // namespace

class TestMalformedCorpus : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_dir.isValid(), "no temporary directory");
        QVERIFY2(QFileInfo::exists(QStringLiteral(KWB_CLI)), "kwb is not built");
    }

    // The watchdog itself must be able to fail a case, for time and for memory.
    void watchdogKillsRunaways()
    {
        const std::string scratch = m_dir.path().toStdString();
        auto slow = runWatched({"/bin/sh", "-c", "sleep 5"}, json::object(), scratch, 0.5);
        QVERIFY(!slow.watchdog.empty());
        QCOMPARE(slow.signal, SIGKILL);
        // python3 -c allocating 300 MB against a 100 MB limit.
        auto big = runWatched({"/usr/bin/python3", "-c", "import time; b = bytearray(300 << 20); time.sleep(5)"}, json::object(),
            scratch, 10, 100L << 10);
        QVERIFY2(big.watchdog.find("resident memory") != std::string::npos, big.watchdog.c_str());
    }

    void corpus_data()
    {
        QTest::addColumn<QByteArray>("spec");
        const json manifest = json::parse(readText(corpusDir() + "/expected.json"));
        QCOMPARE(QString::fromStdString(manifest.at("schema").get<std::string>()), QStringLiteral("kwb.malformed_corpus/1"));
        for (const auto& c : manifest.at("cases"))
            QTest::newRow(c.at("name").get<std::string>().c_str()) << QByteArray::fromStdString(c.dump());
    }

    void corpus()
    {
        QFETCH(QByteArray, spec);
        const json c = json::parse(spec.toStdString());
        const std::string scratch = m_dir.path().toStdString();
        std::string input;
        if (c.contains("generate")) {
            const QString err = generate(c.at("generate"), scratch, input);
            QVERIFY2(err.isEmpty(), qPrintable(err));
        } else {
            input = corpusDir() + "/" + c.at("file").get<std::string>();
        }
        const auto r = runWatched({KWB_CLI, c.at("command").get<std::string>(), input}, c.value("env", json::object()), scratch);
        if (c.contains("generate")) ::unlink(input.c_str());
        const std::string context = "\n--- stdout\n" + r.out.substr(0, 2000) + "\n--- stderr\n" + r.err.substr(0, 4000);
        qInfo("%s: %.2f s, peak RSS %ld MiB, exit %d", c.at("name").get<std::string>().c_str(), r.seconds, r.peakRssKiB / 1024,
            r.exitCode);
        QVERIFY2(r.watchdog.empty(), (r.watchdog + context).c_str());
        QVERIFY2(r.signal == 0, ("killed by signal " + std::to_string(r.signal) + context).c_str());
        QVERIFY2(r.exitCode == c.at("exit").get<int>(), ("exit status " + std::to_string(r.exitCode) + context).c_str());
        if (c.contains("warnings")) {
            const int warnings = countOccurrences(r.err, "kwb: warning:");
            QVERIFY2(warnings == c.at("warnings").get<int>(), ("warnings: " + std::to_string(warnings) + context).c_str());
        }
        for (const auto& s : c.value("stdout", json::array()))
            QVERIFY2(r.out.find(s.get<std::string>()) != std::string::npos, ("stdout lacks: " + s.get<std::string>() + context).c_str());
        for (const auto& s : c.value("stderr", json::array()))
            QVERIFY2(r.err.find(s.get<std::string>()) != std::string::npos, ("stderr lacks: " + s.get<std::string>() + context).c_str());
        // The promise: every reported problem is FILE:LINE:COLUMN or FILE: [member] (no bare library text).
        QVERIFY2(r.err.find("[json.exception") == std::string::npos, ("raw library message" + context).c_str());
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestMalformedCorpus)
#include "tst_malformed_corpus.moc"
