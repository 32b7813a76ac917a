#include "views/zero_acceptance_view.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

#include "export/paper_preset.h"

namespace kwb::ui {

ZeroAcceptanceData loadZeroAcceptanceData(const QString& path)
{
    ZeroAcceptanceData d;
    d.path = path;
    if (path.isEmpty()) {
        d.error = QObject::tr("no zero-acceptance table (datasets/zero_acceptance/) beside the project; "
                              "kwb zeros --out writes one");
        return d;
    }
    auto t = readZeroAcceptanceTable(path.toStdString());
    if (!t.isOk()) d.error = QString::fromStdString(t.status().toString());
    else d.table = std::move(*t);
    return d;
}

namespace {

QString general(double v)
{
    return std::isfinite(v) ? QString::number(v, 'g', 3) : QStringLiteral("–");
}

QString yes(std::optional<bool> v)
{
    return !v ? QStringLiteral("–") : *v ? QObject::tr("yes") : QObject::tr("no");
}

} // namespace

void paintZeroAcceptanceTable(QPainter& p, const QRectF& rect, const ZeroAcceptanceData& d, const FigureStyle& style)
{
    p.save();
    p.fillRect(rect, style.background);
    p.setFont(style.font);
    p.setPen(style.foreground);
    if (d.table.rows.empty()) {
        p.drawText(rect, Qt::AlignCenter | Qt::TextWordWrap, d.error.isEmpty() ? QObject::tr("No table") : d.error);
        p.restore();
        return;
    }
    const auto groups = summarizeZeroAcceptance(d.table.rows);
    // Two-line headers keep the table to a single column's width.
    const QStringList header{QObject::tr("version"), QObject::tr("level"), QObject::tr("problems"),
        QObject::tr("zeros\n1e-2"), QObject::tr("zeros\n1e-4"), QObject::tr("mean\n1e-2"), QObject::tr("mean\n1e-4")};
    QFont body = style.font;
    QFont bold = style.font;
    bold.setBold(true);
    auto widths = [&](std::vector<double>& w) {
        const QFontMetricsF fb(bold), fr(body);
        w.assign(static_cast<std::size_t>(header.size()), 0);
        for (int c = 0; c < header.size(); ++c)
            for (const QString& part : header[c].split(QLatin1Char('\n')))
                w[static_cast<std::size_t>(c)] = std::max(w[static_cast<std::size_t>(c)], fb.horizontalAdvance(part));
        w[0] = std::max(w[0], fr.horizontalAdvance(QStringLiteral("paper (claim)")));
        double total = 0;
        for (double v : w) total += v;
        return total;
    };
    std::vector<double> w;
    double total = widths(w);
    const double minGap = QFontMetricsF(body).height() * 0.5;
    if (total + minGap * header.size() > rect.width()) { // shrink the text to fit
        const double k = rect.width() / (total + minGap * header.size());
        body.setPixelSize(std::max(1, static_cast<int>(body.pixelSize() * k)));
        bold.setPixelSize(body.pixelSize());
        total = widths(w);
    }
    const QFontMetricsF fm(body);
    const double row = fm.height() * 1.3;
    const double gap = std::max(fm.height() * 0.5, (rect.width() - total) / (header.size() + 1));
    std::vector<double> xs;
    double x = rect.left() + gap / 2;
    for (double v : w) {
        xs.push_back(x);
        x += v + gap;
    }
    double y = rect.top() + row * 0.1;
    auto line = [&](const QStringList& cells, const QFont& f, const QColor& c, double h) {
        p.setFont(f);
        p.setPen(c);
        for (int i = 0; i < cells.size(); ++i)
            p.drawText(QRectF(xs[static_cast<std::size_t>(i)], y, w[static_cast<std::size_t>(i)] + gap / 2, h),
                (i == 0 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter, cells[i]);
        y += h;
    };
    line(header, bold, style.foreground, row * 1.7);
    p.setPen(QPen(style.foreground, style.lineWidth * 0.6));
    p.drawLine(QPointF(rect.left() + gap / 4, y), QPointF(rect.right() - gap / 4, y));
    int lastLevel = -1;
    for (const auto& g : groups) {
        if (lastLevel >= 0 && g.level != lastLevel) {
            p.setPen(QPen(style.grid, style.lineWidth * 0.5));
            p.drawLine(QPointF(rect.left() + gap / 4, y), QPointF(rect.right() - gap / 4, y));
        }
        lastLevel = g.level;
        line({QString::fromStdString(g.version), QString::number(g.level), QString::number(g.ran),
                 QString::number(g.zerosPass[0]), QString::number(g.zerosPass[1]), QString::number(g.meanPass[0]),
                 QString::number(g.meanPass[1])},
            body, style.foreground, row);
    }
    p.setPen(QPen(style.foreground, style.lineWidth * 0.6));
    p.drawLine(QPointF(rect.left() + gap / 4, y), QPointF(rect.right() - gap / 4, y));
    line({QObject::tr("paper (claim)"), QStringLiteral("1"), QStringLiteral("60"), QStringLiteral("4"), QStringLiteral("–"),
             QStringLiteral("–"), QStringLiteral("–")},
        body, style.color(1).darker(120), row);
    if (d.table.haveMeta) {
        p.setFont(body);
        p.setPen(QColor(0x66, 0x66, 0x66));
        p.drawText(QRectF(rect.left() + gap / 2, y + row * 0.2, rect.width() - gap, rect.bottom() - y - row * 0.2),
            Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
            QObject::tr("Would all zeros, or a constant equal to the output's mean, pass allclose(ref, answer, atol = rtol "
                        "= tol)? References on %1, PyTorch %2, seed %3.")
                .arg(QString::fromStdString(d.table.meta.device), QString::fromStdString(d.table.meta.torch))
                .arg(d.table.meta.seed));
    }
    p.restore();
}

ZeroAcceptanceView::ZeroAcceptanceView(QWidget* parent)
    : FigureView(parent),
      m_data(std::make_shared<ZeroAcceptanceData>()),
      m_level(new QComboBox),
      m_only(new QComboBox),
      m_summary(new QLabel),
      m_table(new QTableWidget)
{
    setWindowTitle(tr("Zero acceptance"));
    m_level->setObjectName(QStringLiteral("zeroLevel"));
    m_level->addItem(tr("All levels"), 0);
    for (int l = 1; l <= 3; ++l) m_level->addItem(tr("Level %1").arg(l), l);
    m_level->setCurrentIndex(1);
    m_only->setObjectName(QStringLiteral("zeroOnly"));
    m_only->addItem(tr("Every problem"), 0);
    m_only->addItem(tr("Zeros pass at 1e-2 in either version"), 1);
    m_only->addItem(tr("A trivial answer passes (any)"), 2);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    const QStringList cols{tr("level"), tr("problem"), tr("v0 max |ref|"), tr("v0 zeros 1e-2"), tr("v0 zeros 1e-4"),
        tr("v0 mean 1e-2"), tr("current problem"), tr("current max |ref|"), tr("current zeros 1e-2"),
        tr("current zeros 1e-4"), tr("current mean 1e-2")};
    m_table->setColumnCount(cols.size());
    m_table->setHorizontalHeaderLabels(cols);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Show:")));
    bar->addWidget(m_level);
    bar->addWidget(m_only);
    bar->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);
    connect(m_level, &QComboBox::currentIndexChanged, this, [this] { fill(); });
    connect(m_only, &QComboBox::currentIndexChanged, this, [this] { fill(); });
    fill();
}

void ZeroAcceptanceView::setProjectData(ProjectDataPtr next)
{
    const QString path = paperDataPath(next->project, QStringLiteral("zero_acceptance/zero_acceptance_levels.jsonl"));
    if (path == m_loadedPath && !m_data->table.rows.empty()) return;
    m_loadedPath = path;
    // A few hundred rows: read on the GUI thread in milliseconds.
    m_data = std::make_shared<ZeroAcceptanceData>(loadZeroAcceptanceData(path));
    fill();
}

void ZeroAcceptanceView::setLevel(int level)
{
    m_level->setCurrentIndex(std::max(0, m_level->findData(level)));
}

QString ZeroAcceptanceView::figureTitle() const
{
    return tr("Trivial answers accepted by KernelBench's allclose");
}

void ZeroAcceptanceView::paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const
{
    paintZeroAcceptanceTable(painter, rect, *m_data, style);
}

QString ZeroAcceptanceView::summaryText() const
{
    return m_summary->text();
}

void ZeroAcceptanceView::fill()
{
    const auto& rows = m_data->table.rows;
    if (rows.empty()) {
        m_summary->setText(m_data->error.isEmpty() ? tr("No zero-acceptance table loaded.") : m_data->error.toHtmlEscaped());
        m_table->setRowCount(0);
        return;
    }
    const int level = m_level->currentData().toInt();
    QStringList parts;
    for (const auto& g : summarizeZeroAcceptance(rows)) {
        if (level != 0 && g.level != level) continue;
        parts << tr("%1 level %2: <b>%3 of %4</b> accept zeros at 1e-2 (%5 at 1e-4), %6 the mean")
                     .arg(QString::fromStdString(g.version))
                     .arg(g.level)
                     .arg(g.zerosPass[0])
                     .arg(g.ran)
                     .arg(g.zerosPass[1])
                     .arg(g.meanPass[0]);
    }
    m_summary->setText(tr("The paper: all zeros pass on <b>4 of 60</b> level-1 problems at atol = 1e-2. Ours (%1): ")
                           .arg(QFileInfo(m_data->path).fileName())
                       + parts.join(QStringLiteral("; ")) + QLatin1Char('.'));

    // Both versions side by side, by level and problem number (a file of the same number may differ in name).
    struct Pair {
        const ZeroAcceptanceRow* v0 = nullptr;
        const ZeroAcceptanceRow* cur = nullptr;
    };
    std::map<std::pair<int, int>, Pair> pairs;
    for (const auto& r : rows) {
        if (level != 0 && r.level != level) continue;
        const int num = QString::fromStdString(r.problem).section(QLatin1Char('_'), 0, 0).toInt();
        auto& pr = pairs[{r.level, num}];
        (r.version == "v0" ? pr.v0 : pr.cur) = &r;
    }
    const int only = m_only->currentData().toInt();
    auto passesAny = [](const ZeroAcceptanceRow* r, bool zerosOnly) {
        if (!r || r->status != "ok") return false;
        const auto& c = r->combined;
        return c.zerosPass[0] || (!zerosOnly && (c.zerosPass[1] || c.meanPass[0].value_or(false) || c.meanPass[1].value_or(false)));
    };
    m_table->setRowCount(0);
    const QColor hit(0xF4, 0xC7, 0x9A);
    for (const auto& [key, pr] : pairs) {
        if (only == 1 && !passesAny(pr.v0, true) && !passesAny(pr.cur, true)) continue;
        if (only == 2 && !passesAny(pr.v0, false) && !passesAny(pr.cur, false)) continue;
        const int i = m_table->rowCount();
        m_table->insertRow(i);
        auto set = [&](int col, const QString& text, bool mark = false) {
            auto* item = new QTableWidgetItem(text);
            if (mark) item->setBackground(hit);
            m_table->setItem(i, col, item);
        };
        set(0, QString::number(key.first));
        auto side = [&](const ZeroAcceptanceRow* r, int first, bool withName) {
            if (!r) return;
            if (withName) set(first++, QString::fromStdString(r->problem));
            if (r->status != "ok") {
                set(first, QString::fromStdString(r->status));
                return;
            }
            const auto& c = r->combined;
            set(first, general(c.maxAbs));
            set(first + 1, yes(c.zerosPass[0]), c.zerosPass[0]);
            set(first + 2, yes(c.zerosPass[1]), c.zerosPass[1]);
            set(first + 3, yes(c.meanPass[0]), c.meanPass[0].value_or(false));
        };
        set(1, pr.v0 ? QString::fromStdString(pr.v0->problem) : QString());
        side(pr.v0, 2, false);
        side(pr.cur, 6, true);
    }
    m_table->resizeColumnsToContents();
    // Some problem names run to 90 characters: keep both versions on screen, the full name in the tooltip.
    for (int c : {1, 6}) {
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 230));
        for (int r = 0; r < m_table->rowCount(); ++r)
            if (auto* item = m_table->item(r, c)) item->setToolTip(item->text());
    }
}

} // namespace kwb::ui
