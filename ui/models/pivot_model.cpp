#include "models/pivot_model.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <cmath>

#include "analysis/projection_report.h"
#include "analysis/statistics.h"

namespace kwb::ui {

bool naturalLess(const QString& a, const QString& b)
{
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            qsizetype ie = i, je = j;
            while (ie < a.size() && a[ie].isDigit()) ++ie;
            while (je < b.size() && b[je].isDigit()) ++je;
            // Compare the runs as numbers: strip leading zeros, then the longer is larger.
            QStringView x = QStringView(a).sliced(i, ie - i), y = QStringView(b).sliced(j, je - j);
            while (x.size() > 1 && x.front() == u'0') x = x.sliced(1);
            while (y.size() > 1 && y.front() == u'0') y = y.sliced(1);
            if (x.size() != y.size()) return x.size() < y.size();
            if (const int c = x.compare(y); c != 0) return c < 0;
            i = ie;
            j = je;
            continue;
        }
        const QChar ca = a[i].toCaseFolded(), cb = b[j].toCaseFolded();
        if (ca != cb) return ca < cb;
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

const PivotCell* PivotData::cell(int problem, int model) const
{
    if (problem < 0 || model < 0 || problem >= problems.size() || model >= models.size()) return nullptr;
    return &cells[static_cast<std::size_t>(problem)][static_cast<std::size_t>(model)];
}

PivotData computePivot(const ProjectData& data, const std::vector<int>* subset, bool countErrorFlagged)
{
    PivotData p;
    const auto& rows = *data.rows;
    const auto& records = data.records->records;
    std::vector<int> all;
    if (!subset) {
        all.resize(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) all[i] = static_cast<int>(i);
        subset = &all;
    }
    // Labels as the Records table shows them, so a cell's records are what its filters would list.
    QSet<QString> problemSet;
    QSet<QString> modelSet;
    for (int i : *subset) {
        problemSet.insert(rows[static_cast<std::size_t>(i)].problem);
        modelSet.insert(rows[static_cast<std::size_t>(i)].model);
    }
    p.problems = QStringList(problemSet.begin(), problemSet.end());
    p.models = QStringList(modelSet.begin(), modelSet.end());
    std::sort(p.problems.begin(), p.problems.end(), naturalLess);
    std::sort(p.models.begin(), p.models.end(), naturalLess);
    QHash<QString, int> problemIndex;
    QHash<QString, int> modelIndex;
    for (int i = 0; i < p.problems.size(); ++i) problemIndex.insert(p.problems[i], i);
    for (int i = 0; i < p.models.size(); ++i) modelIndex.insert(p.models[i], i);
    p.cells.assign(static_cast<std::size_t>(p.problems.size()),
        std::vector<PivotCell>(static_cast<std::size_t>(p.models.size())));
    std::vector<std::vector<std::vector<double>>> speedups(p.cells.size(),
        std::vector<std::vector<double>>(static_cast<std::size_t>(p.models.size())));
    for (int i : *subset) {
        const RecordRow& row = rows[static_cast<std::size_t>(i)];
        const std::size_t pi = static_cast<std::size_t>(problemIndex.value(row.problem));
        const std::size_t mi = static_cast<std::size_t>(modelIndex.value(row.model));
        PivotCell& c = p.cells[pi][mi];
        c.records.push_back(i);
        const EvalRecord& r = records[static_cast<std::size_t>(i)];
        if (r.verification.storedRerun()) ++p.reVerified;
        if (!r.isCorrect() || (!countErrorFlagged && hasErrorFlag(r))) continue;
        ++c.correct;
        if (auto s = effectiveSpeedup(r); s && *s > 0 && std::isfinite(*s)) speedups[pi][mi].push_back(*s);
    }
    for (std::size_t pi = 0; pi < p.cells.size(); ++pi)
        for (std::size_t mi = 0; mi < p.cells[pi].size(); ++mi) {
            PivotCell& c = p.cells[pi][mi];
            const auto& s = speedups[pi][mi];
            c.timed = s.size();
            if (s.empty()) continue;
            c.best = *std::max_element(s.begin(), s.end());
            c.median = median(s);
        }
    p.records = subset->size();
    return p;
}

PivotModel::PivotModel(QObject* parent) : QAbstractTableModel(parent) {}

void PivotModel::setPivot(PivotData pivot)
{
    beginResetModel();
    m_pivot = std::move(pivot);
    endResetModel();
}

QString PivotModel::cellText(const PivotCell& c)
{
    if (c.records.empty()) return {};
    const QString counts = QStringLiteral("%1/%2").arg(c.correct).arg(c.records.size());
    if (!c.best) return QStringLiteral("– · ") + counts;
    return QString::number(*c.best, 'f', 2) + QStringLiteral("× · ") + QString::number(*c.median, 'f', 2) +
           QStringLiteral("× · ") + counts;
}

QColor PivotModel::cellColor(const PivotCell& c)
{
    if (c.records.empty()) return {};
    if (!c.best) return QColor(0xE4, 0xE4, 0xE4);
    // Colour-blind-safe blue (faster) and orange (slower), by log10 of the best speedup.
    const double t = std::clamp(std::log10(*c.best), -1.0, 1.0);
    const QColor base = t >= 0 ? QColor(0x00, 0x72, 0xB2) : QColor(0xE6, 0x9F, 0x00);
    const double a = 0.12 + 0.6 * std::abs(t);
    return QColor::fromRgbF(static_cast<float>(1 - a + a * base.redF()), static_cast<float>(1 - a + a * base.greenF()),
        static_cast<float>(1 - a + a * base.blueF()));
}

int PivotModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_pivot.problems.size());
}

int PivotModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_pivot.models.size());
}

QVariant PivotModel::data(const QModelIndex& index, int role) const
{
    const PivotCell* c = index.isValid() ? m_pivot.cell(index.row(), index.column()) : nullptr;
    if (!c) return {};
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    switch (role) {
    case Qt::DisplayRole: return cellText(*c);
    case Qt::BackgroundRole: {
        const QColor col = cellColor(*c);
        return col.isValid() ? QVariant(col) : QVariant();
    }
    case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (c->records.empty()) return tr("No records of %1 for %2").arg(m_pivot.models[index.column()], m_pivot.problems[index.row()]);
        return tr("%1 on %2: %3 records, %4 correct (%5 timed); best %6, median %7. Click to list them.")
            .arg(m_pivot.models[index.column()], m_pivot.problems[index.row()])
            .arg(c->records.size())
            .arg(c->correct)
            .arg(c->timed)
            .arg(c->best ? QString::number(*c->best, 'g', 4) + QStringLiteral("×") : QStringLiteral("–"),
                c->median ? QString::number(*c->median, 'g', 4) + QStringLiteral("×") : QStringLiteral("–"));
    case RawValueRole: return c->best.value_or(nan);
    case MedianRole: return c->median.value_or(nan);
    case CorrectRole: return static_cast<qlonglong>(c->correct);
    case RecordCountRole: return static_cast<qlonglong>(c->records.size());
    }
    return {};
}

QVariant PivotModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return QAbstractTableModel::headerData(section, orientation, role);
    const QStringList& names = orientation == Qt::Horizontal ? m_pivot.models : m_pivot.problems;
    if (section < 0 || section >= names.size()) return {};
    return names[section];
}

} // namespace kwb::ui
