#pragma once
// What an opened or dropped path is: records, a profiler trace, a problem
// suite, a project file, or a folder holding several of those (such as
// datasets/). Sniffs names and first bytes; never reads whole files.
#include <QString>
#include <QStringList>

#include "project/project.h"

namespace kwb::ui {

enum class InputKind { Records, Trace, ProblemSuite, Project, Missing };

InputKind classifyInput(const QString& path);
// A profiler trace by name or first bytes (Kineto JSON or .json.gz, nsys SQLite).
bool looksLikeTrace(const QString& path);

// Adds paths to the project by kind; a folder whose subfolders are of
// different kinds (evaluations/, traces/, problems/) adds each subfolder.
// Returns the project files among the paths (the caller decides whether to
// open them) and appends a message per path it could not use.
QStringList addInputs(Project& project, const QStringList& paths, QStringList* messages);

} // namespace kwb::ui
