#pragma once
// Two records side by side: timings, baselines, flags, coverage, provenance,
// and a line diff of their kernel sources when both have one; when the two
// come from different runs, the two runs' statistics as `kwb summary` gives
// them (core's summarize). Pure functions over loaded data; the Records view
// shows the result for a selection of two rows.
#include <QString>
#include <QStringList>

#include <vector>

#include "project/project_data.h"

namespace kwb::ui {

enum class DiffOp { Same, Removed, Added };
struct DiffLine {
    DiffOp op;
    QString text;
};

// Line diff by longest common subsequence; inputs over kMaxDiffLines lines
// each are not diffed (empty result, *tooLarge set).
inline constexpr int kMaxDiffLines = 3000;
std::vector<DiffLine> lineDiff(const QStringList& a, const QStringList& b, bool* tooLarge = nullptr);

// HTML for the comparison pane. sourceA/sourceB: the kernels' text, empty when a record has none.
QString compareRecordsHtml(const ProjectData& data, int recordA, int recordB, const QString& sourceA,
    const QString& sourceB);

} // namespace kwb::ui
