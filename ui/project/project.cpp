#include "project/project.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace kwb::ui {

namespace {

QStringList stringList(const QJsonValue& v)
{
    QStringList out;
    if (v.isString()) out << v.toString();
    for (const auto& e : v.toArray())
        if (e.isString() && !e.toString().isEmpty()) out << e.toString();
    return out;
}

QJsonArray toArray(const QStringList& list)
{
    QJsonArray a;
    for (const auto& s : list) a.append(s);
    return a;
}

QString relativeTo(const QString& entry, const QDir& dir)
{
    if (entry.isEmpty() || QFileInfo(entry).isRelative()) return entry;
    const QString rel = dir.relativeFilePath(entry);
    // Only paths below the project folder move with it; others stay absolute.
    if (rel.startsWith(QLatin1String(".."))) return QDir::cleanPath(entry);
    return rel;
}

QStringList relativeList(const QStringList& entries, const QDir& dir)
{
    QStringList out;
    for (const auto& e : entries) out << relativeTo(e, dir);
    return out;
}

// Line and column of a byte offset, for syntax errors.
QString lineColumn(const QByteArray& text, qsizetype offset)
{
    qsizetype line = 1;
    qsizetype col = 1;
    for (qsizetype i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return QString::number(line) + QLatin1Char(':') + QString::number(col);
}

} // namespace

QString Project::baseDir() const
{
    return path.isEmpty() ? QDir::currentPath() : QFileInfo(path).absolutePath();
}

QStringList Project::resolved(const QStringList& entries) const
{
    const QDir dir(baseDir());
    QStringList out;
    for (const auto& e : entries) out << QDir::cleanPath(dir.absoluteFilePath(e));
    return out;
}

QString Project::resolvedRules() const
{
    return rules.isEmpty() ? QString() : QDir::cleanPath(QDir(baseDir()).absoluteFilePath(rules));
}

bool parseProject(const QByteArray& json, const QString& path, Project* project, QString* error)
{
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &perr);
    if (perr.error != QJsonParseError::NoError) {
        *error = path + QLatin1Char(':') + lineColumn(json, perr.offset) + QLatin1String(": ") + perr.errorString();
        return false;
    }
    if (!doc.isObject()) {
        *error = path + QLatin1String(": a project file is a JSON object");
        return false;
    }
    const QJsonObject o = doc.object();
    const QString schema = o.value(QLatin1String("schema")).toString();
    if (schema != QLatin1String(kProjectSchema)) {
        *error = path + QLatin1String(": schema is '") + schema + QLatin1String("', expected '") +
                 QLatin1String(kProjectSchema) + QLatin1Char('\'');
        return false;
    }
    Project p;
    p.path = path.isEmpty() ? QString() : QFileInfo(path).absoluteFilePath();
    p.name = o.value(QLatin1String("name")).toString();
    const QJsonObject files = o.value(QLatin1String("files")).toObject();
    p.records = stringList(files.value(QLatin1String("records")));
    p.traces = stringList(files.value(QLatin1String("traces")));
    p.problems = stringList(files.value(QLatin1String("problems")));
    p.rules = o.value(QLatin1String("rules")).toString();
    const QJsonObject f = o.value(QLatin1String("filters")).toObject();
    p.filter.model = f.value(QLatin1String("model")).toString();
    p.filter.level = f.value(QLatin1String("level")).toVariant().toString();
    p.filter.problem = f.value(QLatin1String("problem")).toString();
    p.filter.status = f.value(QLatin1String("status")).toString();
    p.filter.flag = f.value(QLatin1String("flag")).toString();
    p.filter.search = f.value(QLatin1String("search")).toString();
    const QJsonObject fig = o.value(QLatin1String("figures")).toObject();
    if (fig.contains(QLatin1String("preset"))) p.figures.preset = fig.value(QLatin1String("preset")).toString();
    if (fig.contains(QLatin1String("group_by"))) p.figures.groupBy = fig.value(QLatin1String("group_by")).toString();
    if (fig.contains(QLatin1String("distribution")))
        p.figures.distribution = fig.value(QLatin1String("distribution")).toString();
    p.view = o.value(QLatin1String("view")).toString();
    *project = std::move(p);
    return true;
}

bool loadProject(const QString& path, Project* project, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = path + QLatin1String(": ") + file.errorString();
        return false;
    }
    return parseProject(file.readAll(), path, project, error);
}

QByteArray projectToJson(const Project& p, const QString& path)
{
    const QDir dir(path.isEmpty() ? QDir::currentPath() : QFileInfo(path).absolutePath());
    // Entries were resolved against the old location; re-express them for the new one.
    const Project abs = p;
    QJsonObject files;
    files.insert(QLatin1String("records"), toArray(relativeList(abs.resolved(p.records), dir)));
    files.insert(QLatin1String("traces"), toArray(relativeList(abs.resolved(p.traces), dir)));
    files.insert(QLatin1String("problems"), toArray(relativeList(abs.resolved(p.problems), dir)));
    QJsonObject o;
    o.insert(QLatin1String("schema"), QLatin1String(kProjectSchema));
    if (!p.name.isEmpty()) o.insert(QLatin1String("name"), p.name);
    o.insert(QLatin1String("files"), files);
    if (!p.rules.isEmpty()) o.insert(QLatin1String("rules"), relativeTo(p.resolvedRules(), dir));
    QJsonObject f;
    auto put = [&f](const char* key, const QString& v) {
        if (!v.isEmpty()) f.insert(QLatin1String(key), v);
    };
    put("model", p.filter.model);
    put("level", p.filter.level);
    put("problem", p.filter.problem);
    put("status", p.filter.status);
    put("flag", p.filter.flag);
    put("search", p.filter.search);
    o.insert(QLatin1String("filters"), f);
    QJsonObject fig;
    fig.insert(QLatin1String("preset"), p.figures.preset);
    fig.insert(QLatin1String("group_by"), p.figures.groupBy);
    fig.insert(QLatin1String("distribution"), p.figures.distribution);
    o.insert(QLatin1String("figures"), fig);
    if (!p.view.isEmpty()) o.insert(QLatin1String("view"), p.view);
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

bool saveProject(const Project& project, const QString& path, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = path + QLatin1String(": ") + file.errorString();
        return false;
    }
    file.write(projectToJson(project, path));
    if (!file.commit()) {
        *error = path + QLatin1String(": ") + file.errorString();
        return false;
    }
    return true;
}

} // namespace kwb::ui
