#include "project/input_classifier.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>

namespace kwb::ui {

namespace {

InputRole classifyFolder(const QString& path)
{
    int traces = 0;
    int specs = 0;
    int others = 0;
    QDirIterator it(path, {QStringLiteral("*.json"), QStringLiteral("*.jsonl"), QStringLiteral("*.gz"),
                              QStringLiteral("*.sqlite")},
        QDir::Files, QDirIterator::Subdirectories);
    for (int n = 0; it.hasNext() && n < 50; ++n) {
        const kwb::InputKind kind = sniffInput(it.next());
        if (isTraceKind(kind)) ++traces;
        else if (isSpecKind(kind)) ++specs;
        else ++others;
    }
    if (traces > others && traces >= specs) return InputRole::Trace;
    if (specs > others) return InputRole::ProblemSuite;
    return InputRole::Records;
}

} // namespace

kwb::InputKind sniffInput(const QString& path)
{
    return sniffInputKind(QFile::encodeName(path).toStdString());
}

InputRole roleOfKind(kwb::InputKind kind)
{
    if (isRecordKind(kind)) return InputRole::Records;
    if (isTraceKind(kind)) return InputRole::Trace;
    if (isSpecKind(kind)) return InputRole::ProblemSuite;
    switch (kind) {
    case kwb::InputKind::Project: return InputRole::Project;
    case kwb::InputKind::Missing: return InputRole::Missing;
    default: return InputRole::Unknown;
    }
}

bool looksLikeTrace(const QString& path)
{
    return isTraceKind(sniffInput(path));
}

InputRole classifyInput(const QString& path)
{
    const kwb::InputKind kind = sniffInput(path);
    if (kind == kwb::InputKind::Folder) return classifyFolder(path);
    return roleOfKind(kind);
}

QStringList addInputs(Project& project, const QStringList& paths, QStringList* messages)
{
    QStringList projects;
    auto addUnique = [](QStringList& list, const QString& p) {
        if (!list.contains(p)) list << p;
    };
    auto note = [messages](const QString& m) {
        if (messages) *messages << m;
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
        const kwb::InputKind kind = sniffInput(path);
        switch (kind == kwb::InputKind::Folder ? classifyFolder(path) : roleOfKind(kind)) {
        case InputRole::Records: addUnique(project.records, path); break;
        case InputRole::Trace: addUnique(project.traces, path); break;
        case InputRole::ProblemSuite: addUnique(project.problems, path); break;
        case InputRole::Project: projects << path; break;
        case InputRole::Missing: note(path + QLatin1String(": no such file or folder")); break;
        case InputRole::Unknown:
            // The record loader names what it expected, with the position.
            addUnique(project.records, path);
            break;
        }
    }
    return projects;
}

} // namespace kwb::ui
