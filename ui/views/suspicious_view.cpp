#include "views/suspicious_view.h"

#include <QGroupBox>
#include <QPainter>

#include <cmath>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "models/raw_value_proxy.h"
#include "models/suspicious_model.h"
#include "views/filtered_table.h"
#include "views/rerun_panel.h"

namespace kwb::ui {

SuspiciousView::SuspiciousView(RerunService* service, QWidget* parent)
    : FigureView(parent),
      m_data(std::make_shared<ProjectData>()),
      m_model(new SuspiciousModel(this)),
      m_proxy(new RawValueProxy(this)),
      m_table(new QTableView),
      m_search(new QLineEdit),
      m_summary(new QLabel),
      m_reasons(new QTextBrowser),
      m_panel(new RerunPanel(service))
{
    setWindowTitle(tr("Suspicious speedups"));
    m_proxy->setSourceModel(m_model);
    setupFilteredTable(m_table, m_proxy, m_search, tr("Filter by record, model, problem, flag or reason…"));
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setColumnWidth(SuspiciousModel::Rank, 40);
    m_table->setColumnWidth(SuspiciousModel::Record, 160);
    m_table->setColumnWidth(SuspiciousModel::Model, 130);
    m_table->setColumnWidth(SuspiciousModel::Problem, 200);
    m_table->setColumnWidth(SuspiciousModel::Speedup, 130);
    m_table->setColumnWidth(SuspiciousModel::Severity, 70);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_search, 1);
    bar->addWidget(m_summary);
    auto* rerunBox = new QGroupBox(tr("Live re-run"));
    auto* rb = new QVBoxLayout(rerunBox);
    rb->addWidget(m_panel);
    auto* bottom = new QSplitter;
    bottom->setObjectName(QStringLiteral("suspiciousBottom")); // saved with the window layout
    bottom->addWidget(m_reasons);
    bottom->addWidget(rerunBox);
    auto* split = new QSplitter(Qt::Vertical);
    split->setObjectName(QStringLiteral("suspiciousSplit"));
    split->addWidget(m_table);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &SuspiciousView::showSelected);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        Q_EMIT recordActivated(index.data(SuspiciousModel::RecordIndexRole).toInt());
    });
    connect(m_panel, &RerunPanel::liveCoverage, this, &SuspiciousView::liveCoverage);
    setProjectData(m_data);
}

void SuspiciousView::setProjectData(ProjectDataPtr next)
{
    m_data = next ? std::move(next) : std::make_shared<ProjectData>();
    m_model->setData(m_data);
    m_panel->setProjectData(m_data);
    const std::size_t n = static_cast<std::size_t>(m_model->rowCount());
    const std::size_t claims = m_data->unverifiedClaimCount();
    m_summary->setText(claims == 0 ? tr("%1 flagged of %2 records").arg(n).arg(m_data->rows->size())
                                   : tr("%1 flagged and %2 unverified claims above %3x, of %4 records")
                                         .arg(n - claims)
                                         .arg(claims)
                                         .arg(unverifiedClaimThreshold())
                                         .arg(m_data->rows->size()));
    if (n == 0)
        m_reasons->setHtml(tr("<p>No flagged records. Flags come from verification (<tt>kwb verify</tt>, live "
                              "re-runs) and are stored in the records' <tt>verification.flags</tt>.</p>"));
    else
        selectRow(0);
}

void SuspiciousView::selectRow(int row)
{
    const QModelIndex i = m_proxy->index(row, 0);
    if (i.isValid()) m_table->setCurrentIndex(i);
}

void SuspiciousView::showSelected()
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid()) return;
    const int rec = current.data(SuspiciousModel::RecordIndexRole).toInt();
    m_panel->setRecord(rec);
    const EvalRecord& r = m_data->records->records[static_cast<std::size_t>(rec)];
    const RecordRow& row = (*m_data->rows)[static_cast<std::size_t>(rec)];
    QString h = QLatin1String("<h3 style='margin:2px'>") + row.id.toHtmlEscaped() + QStringLiteral(" — ") +
                row.problem.toHtmlEscaped() + QLatin1String("</h3><p>") + row.model.toHtmlEscaped();
    if (!std::isnan(row.speedup)) h += tr(", claimed speedup %1×").arg(row.speedup, 0, 'f', 2);
    h += QLatin1String("</p><ul>");
    if (row.unverifiedClaim)
        h += QLatin1String("<li><b>unverified_claim</b>: ") +
             tr("above the %1x threshold, and nothing has verified it: no flags, not re-run here. Re-run it live "
                "(KernelBench samples through the PyTorch bridge) before believing it.")
                 .arg(unverifiedClaimThreshold()) +
             QLatin1String("</li>");
    for (const auto& f : r.verification.flags)
        h += QLatin1String("<li><b>") + QString::fromStdString(f.code).toHtmlEscaped() + QLatin1String("</b> (") +
             QString::fromStdString(f.severity.empty() ? std::string("warning") : f.severity).toHtmlEscaped() +
             QLatin1String("): ") + QString::fromStdString(f.reason).toHtmlEscaped() + QLatin1String("</li>");
    h += QLatin1String("</ul><p style='color:#555'>") + tr("Double-click the row to open the record.") +
         QLatin1String("</p>");
    m_reasons->setHtml(h);
}

QString SuspiciousView::figureTitle() const
{
    return tr("Suspicious speedups: claimed speedup of each flagged or unverified record");
}

void SuspiciousView::paintFigure(QPainter& p, const QRectF& rect, const FigureStyle& style) const
{
    p.save();
    p.fillRect(rect, style.background);
    p.setPen(style.foreground);
    const QFontMetricsF fm(style.font);
    const QFontMetricsF tfm(style.titleFont);
    const int flags = Qt::AlignLeft | Qt::TextWordWrap;
    double top = rect.top() + 2;
    const double titleH = tfm.boundingRect(QRectF(rect.left(), 0, rect.width(), 1000), flags, figureTitle()).height();
    p.setFont(style.titleFont);
    p.drawText(QRectF(rect.left(), top, rect.width(), titleH), flags, figureTitle());
    top += titleH + 4;
    // Rows in the table's order (as filtered and sorted on screen).
    const int rows = m_proxy->rowCount();
    if (rows == 0) {
        p.setFont(style.font);
        p.drawText(QRectF(rect.left(), top, rect.width(), rect.bottom() - top), Qt::AlignCenter,
            tr("No flagged or unverified records"));
        p.restore();
        return;
    }
    const double rowH = fm.height() + 3;
    const double legendH = fm.height() * 2 + 8;
    const double axisH = fm.height() * 2 + 6;
    const int shown = std::max(1, std::min(rows, static_cast<int>((rect.bottom() - top - legendH - axisH) / rowH)));
    struct Item {
        QString label;
        double speedup;
        QColor color;
    };
    std::vector<Item> items;
    double lo = 1.0, hi = unverifiedClaimThreshold() * 1.5;
    for (int r = 0; r < shown; ++r) {
        const int rec = m_proxy->index(r, 0).data(SuspiciousModel::RecordIndexRole).toInt();
        const RecordRow& row = (*m_data->rows)[static_cast<std::size_t>(rec)];
        const QColor c = row.severity >= 3 ? QColor(0xD5, 0x5E, 0x00)
                       : row.severity == 2 ? QColor(0xB0, 0x78, 0x00)
                       : row.unverifiedClaim ? QColor(0x00, 0x72, 0xB2)
                                             : QColor(0x77, 0x77, 0x77);
        // The id names the record; the model is added where the id does not contain it.
        const QString label = row.id.contains(row.model) || row.model.isEmpty() ? row.id : row.id + QStringLiteral(" · ") + row.model;
        items.push_back({label, row.speedup, c});
        if (std::isfinite(row.speedup) && row.speedup > 0) {
            lo = std::min(lo, row.speedup);
            hi = std::max(hi, row.speedup);
        }
    }
    lo = std::pow(10.0, std::floor(std::log10(lo)));
    hi = std::pow(10.0, std::ceil(std::log10(hi)));
    // Labels get at most 55% of the width; longer ones are set smaller, never cut.
    QFont labelFont = style.font;
    if (labelFont.pixelSize() <= 0) labelFont.setPixelSize(static_cast<int>(std::lround(labelFont.pointSizeF() * kLayoutDpi / 72.0)));
    auto widest = [&items](const QFont& f) {
        const QFontMetricsF m(f);
        double w = 0;
        for (const auto& it : items) w = std::max(w, m.horizontalAdvance(it.label));
        return w;
    };
    const double maxLabelW = rect.width() * 0.55;
    while (widest(labelFont) + 8 > maxLabelW && labelFont.pixelSize() > 5) labelFont.setPixelSize(labelFont.pixelSize() - 1);
    const double labelW = std::min(widest(labelFont) + 8, maxLabelW);
    // Room on the right for the last tick label.
    const QRectF plot(rect.left() + labelW, top, rect.width() - labelW - fm.horizontalAdvance(QStringLiteral("1000×")) / 2 - 4,
        shown * rowH);
    auto xOf = [&](double v) { return plot.left() + plot.width() * (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)); };
    QPen grid(style.grid);
    grid.setWidthF(std::max(0.5, style.lineWidth * 0.4));
    p.setFont(style.font);
    for (double d = lo; d <= hi * 1.0001; d *= 10) {
        p.setPen(grid);
        p.drawLine(QPointF(xOf(d), plot.top()), QPointF(xOf(d), plot.bottom()));
        p.setPen(style.foreground);
        p.drawText(QRectF(xOf(d) - 30, plot.bottom() + 2, 60, fm.height()), Qt::AlignHCenter, (d >= 1 ? QString::number(d, 'f', 0) : QString::number(d, 'g', 3)) + QStringLiteral("×"));
    }
    p.drawText(QRectF(plot.left(), plot.bottom() + fm.height() + 3, plot.width(), fm.height()), Qt::AlignHCenter,
        tr("Claimed speedup (log scale)"));
    QPen dashed(QColor(0x66, 0x66, 0x66));
    dashed.setStyle(Qt::DashLine);
    dashed.setWidthF(std::max(0.75, style.lineWidth * 0.75));
    p.setPen(dashed);
    p.drawLine(QPointF(xOf(unverifiedClaimThreshold()), plot.top()), QPointF(xOf(unverifiedClaimThreshold()), plot.bottom()));
    const double dot = std::max(2.5, fm.height() * 0.3);
    for (std::size_t i = 0; i < items.size(); ++i) {
        const double y = plot.top() + (static_cast<double>(i) + 0.5) * rowH;
        p.setFont(labelFont);
        p.setPen(style.foreground);
        p.drawText(QRectF(rect.left(), y - rowH / 2, labelW - 8, rowH), Qt::AlignRight | Qt::AlignVCenter, items[i].label);
        if (!std::isfinite(items[i].speedup) || items[i].speedup <= 0) {
            p.setFont(style.font);
            p.drawText(QRectF(plot.left() + 4, y - rowH / 2, plot.width(), rowH), Qt::AlignLeft | Qt::AlignVCenter, tr("no speedup"));
            continue;
        }
        p.setPen(Qt::NoPen);
        p.setBrush(items[i].color);
        p.drawEllipse(QPointF(xOf(items[i].speedup), y), dot, dot);
    }
    p.setBrush(Qt::NoBrush);
    p.setFont(style.font);
    p.setPen(style.foreground);
    // Legend: the dot colours, the threshold, and what was left out.
    double lx = rect.left();
    const double ly = plot.bottom() + axisH;
    const std::pair<QColor, QString> keys[] = {{QColor(0xD5, 0x5E, 0x00), tr("error flag")},
        {QColor(0xB0, 0x78, 0x00), tr("warning flag")}, {QColor(0x00, 0x72, 0xB2), tr("unverified claim")},
        {QColor(0x77, 0x77, 0x77), tr("info flag")}};
    for (const auto& [color, text] : keys) {
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawEllipse(QPointF(lx + dot, ly + fm.height() / 2), dot, dot);
        p.setBrush(Qt::NoBrush);
        p.setPen(style.foreground);
        p.drawText(QPointF(lx + 2 * dot + 4, ly + fm.ascent()), text);
        lx += 2 * dot + 4 + fm.horizontalAdvance(text) + 14;
    }
    QString note = tr("Dashed: the %1× review threshold.").arg(unverifiedClaimThreshold(), 0, 'g', 3);
    if (shown < rows) note += tr(" The first %1 of %2 listed records, in the table's order.").arg(shown).arg(rows);
    p.drawText(QRectF(rect.left(), ly + fm.height() + 2, rect.width(), legendH), flags, note);
    p.restore();
}

} // namespace kwb::ui
