#pragma once
// The project file (docs/formats.md, "Project file"): which inputs are loaded,
// the record filters, the kernel-family rule table and the figure settings.
// Paths are stored relative to the project file's folder when they lie below
// it, so a project and its data move together.
#include <QString>
#include <QStringList>

namespace kwb::ui {

inline constexpr const char* kProjectSchema = "kwb.project/1";

struct RecordFilter {
    QString model;   // empty = any
    QString level;   // "1", "2", ... ; empty = any
    QString problem; // exact problem label; empty = any
    QString status;  // outcome name ("correct", ...); empty = any
    QString flag;    // "" any, "flagged", "unflagged", or a flag code
    QString search;  // free text over id, model, problem, flags, error

    bool operator==(const RecordFilter&) const = default;
};

struct FigureSettings {
    QString preset = QStringLiteral("single-column");
    QString groupBy = QStringLiteral("model");
    QString distribution = QStringLiteral("histogram"); // histogram, ecdf, fastp, box

    bool operator==(const FigureSettings&) const = default;
};

struct Project {
    QString path; // the project file; empty for an unsaved project
    QString name;
    QStringList records;  // record files or folders, as written in the file
    QStringList traces;   // profiler traces or folders
    QStringList problems; // problem-suite folders
    QString rules;        // kernel-family rule table; empty = the built-in one
    RecordFilter filter;
    FigureSettings figures;
    QString view;         // the view shown last

    bool operator==(const Project&) const = default;

    bool isEmpty() const { return records.isEmpty() && traces.isEmpty() && problems.isEmpty(); }
    // Absolute paths of the entries (relative ones resolve against the
    // project file's folder, or the working directory when unsaved).
    QStringList resolved(const QStringList& entries) const;
    QString resolvedRules() const;
    QString baseDir() const;
};

// Parses a project file's text; `path` is where it lives (for relative paths
// and for messages). On failure returns false and sets *error to
// "FILE: reason" (with line:column for syntax errors).
bool parseProject(const QByteArray& json, const QString& path, Project* project, QString* error);
bool loadProject(const QString& path, Project* project, QString* error);
// Writes paths relative to the folder of `path` where possible.
QByteArray projectToJson(const Project& project, const QString& path);
bool saveProject(const Project& project, const QString& path, QString* error);

} // namespace kwb::ui
