#include "project/input_classifier.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

namespace kwb::ui {

namespace {

QByteArray head(const QString& path, qint64 bytes = 4096)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.read(bytes);
}

bool isTraceFile(const QString& path)
{
    const QString name = QFileInfo(path).fileName().toLower();
    if (name.endsWith(QLatin1String(".sqlite")) || name.endsWith(QLatin1String(".pt.trace.json")) ||
        name.endsWith(QLatin1String(".pt.trace.json.gz")))
        return true;
    const QByteArray h = head(path);
    if (h.startsWith("SQLite format 3")) return true;
    // Compressed: record files say so in their name (*.jsonl.gz); other .json.gz files are traces.
    if (h.startsWith("\x1f\x8b")) return !name.endsWith(QLatin1String(".jsonl.gz"));
    return h.contains("\"traceEvents\"") || h.contains("\"schemaVersion\"") || h.contains("\"deviceProperties\"");
}

bool isSpecFile(const QString& path)
{
    const QByteArray h = head(path);
    return h.contains("kwb.problem/1") || h.contains("kwb.candidate/1");
}

InputKind classifyFolder(const QString& path)
{
    int traces = 0;
    int specs = 0;
    int others = 0;
    QDirIterator it(path, {QStringLiteral("*.json"), QStringLiteral("*.jsonl"), QStringLiteral("*.gz"),
                              QStringLiteral("*.sqlite")},
        QDir::Files, QDirIterator::Subdirectories);
    for (int n = 0; it.hasNext() && n < 50; ++n) {
        const QString f = it.next();
        if (isTraceFile(f)) ++traces;
        else if (isSpecFile(f)) ++specs;
        else ++others;
    }
    if (traces > others && traces >= specs) return InputKind::Trace;
    if (specs > others) return InputKind::ProblemSuite;
    return InputKind::Records;
}

} // namespace

bool looksLikeTrace(const QString& path)
{
    return isTraceFile(path);
}

InputKind classifyInput(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists()) return InputKind::Missing;
    if (info.isDir()) return classifyFolder(path);
    const QString name = info.fileName().toLower();
    if (name.endsWith(QLatin1String(".kwbproject.json")) || head(path, 512).contains("kwb.project/1"))
        return InputKind::Project;
    if (isTraceFile(path)) return InputKind::Trace;
    if (isSpecFile(path)) return InputKind::ProblemSuite;
    return InputKind::Records;
}

QStringList addInputs(Project& project, const QStringList& paths, QStringList* messages)
{
    QStringList projects;
    auto addUnique = [](QStringList& list, const QString& p) {
        if (!list.contains(p)) list << p;
    };
    for (const auto& raw : paths) {
        const QString path = QDir::cleanPath(QFileInfo(raw).absoluteFilePath());
        const QFileInfo info(path);
        if (info.isDir()) {
            // A dataset folder: its well-known subfolders each have one kind.
            bool split = false;
            for (const char* sub : {"evaluations", "traces", "problems", "candidates"}) {
                const QString s = path + QLatin1Char('/') + QLatin1String(sub);
                if (!QFileInfo(s).isDir()) continue;
                split = true;
                const QString subName = QLatin1String(sub);
                if (subName == QLatin1String("evaluations")) addUnique(project.records, s);
                else if (subName == QLatin1String("traces")) addUnique(project.traces, s);
                else addUnique(project.problems, s);
            }
            if (split) continue;
        }
        switch (classifyInput(path)) {
        case InputKind::Records: addUnique(project.records, path); break;
        case InputKind::Trace: addUnique(project.traces, path); break;
        case InputKind::ProblemSuite: addUnique(project.problems, path); break;
        case InputKind::Project: projects << path; break;
        case InputKind::Missing:
            if (messages) *messages << path + QLatin1String(": no such file or folder");
            break;
        }
    }
    return projects;
}

} // namespace kwb::ui
