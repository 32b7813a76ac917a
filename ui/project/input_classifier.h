#pragma once
// Which part of a project an opened or dropped path belongs to: records, a
// profiler trace, a problem suite, a project file, or a folder holding several
// of those (such as datasets/). The file kind itself comes from core's one
// sniffer (core/workbench/input_kind.h); this only maps it to project roles.
#include <QString>
#include <QStringList>

#include "project/project.h"
#include "workbench/input_kind.h"

namespace kwb::ui {

enum class InputRole { Records, Trace, ProblemSuite, Project, Missing, Unknown };

// The core file kind of a path (Folder for folders).
kwb::InputKind sniffInput(const QString& path);
InputRole roleOfKind(kwb::InputKind kind);
InputRole classifyInput(const QString& path);
// A profiler trace (Kineto JSON or .json.gz, nsys SQLite).
bool looksLikeTrace(const QString& path);

// Adds paths to the project by role; a folder whose subfolders are of
// different kinds (evaluations/, traces/, problems/) adds each subfolder.
// Returns the project files among the paths (the caller decides whether to
// open them) and appends a message per path that does not exist.
QStringList addInputs(Project& project, const QStringList& paths, QStringList* messages);

} // namespace kwb::ui
