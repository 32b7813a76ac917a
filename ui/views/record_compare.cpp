#include "views/record_compare.h"

#include <QObject>

#include <algorithm>
#include <cmath>

#include "analysis/statistics.h"

namespace kwb::ui {

std::vector<DiffLine> lineDiff(const QStringList& a, const QStringList& b, bool* tooLarge)
{
    std::vector<DiffLine> out;
    if (tooLarge) *tooLarge = false;
    if (a.size() > kMaxDiffLines || b.size() > kMaxDiffLines) {
        if (tooLarge) *tooLarge = true;
        return out;
    }
    // Common prefix and suffix first: kernels compared are usually mostly alike.
    qsizetype pre = 0;
    while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
    qsizetype suf = 0;
    while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
    const qsizetype n = a.size() - pre - suf;
    const qsizetype m = b.size() - pre - suf;
    for (qsizetype i = 0; i < pre; ++i) out.push_back({DiffOp::Same, a[i]});
    // lcs[i][j]: LCS length of a[pre+i..] and b[pre+j..].
    std::vector<int> lcs(static_cast<std::size_t>((n + 1) * (m + 1)), 0);
    auto at = [&](qsizetype i, qsizetype j) -> int& { return lcs[static_cast<std::size_t>(i * (m + 1) + j)]; };
    for (qsizetype i = n - 1; i >= 0; --i)
        for (qsizetype j = m - 1; j >= 0; --j)
            at(i, j) = a[pre + i] == b[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    qsizetype i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a[pre + i] == b[pre + j]) {
            out.push_back({DiffOp::Same, a[pre + i]});
            ++i;
            ++j;
        } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
            // Removals before additions, as unified diffs show them.
            out.push_back({DiffOp::Removed, a[pre + i]});
            ++i;
        } else {
            out.push_back({DiffOp::Added, b[pre + j]});
            ++j;
        }
    }
    for (qsizetype k = a.size() - suf; k < a.size(); ++k) out.push_back({DiffOp::Same, a[k]});
    return out;
}

namespace {

QString esc(const std::string& s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

QString ms(const std::optional<double>& v)
{
    return v ? QString::number(*v, 'g', 4) + QStringLiteral(" ms") : QStringLiteral("–");
}

QString flagsOf(const EvalRecord& r)
{
    if (r.verification.flags.empty()) return QObject::tr("none");
    QStringList out;
    for (const auto& f : r.verification.flags)
        out << QLatin1String("<b>") + esc(f.code) + QLatin1String("</b> (") + esc(f.severity.empty() ? "warning" : f.severity) +
                   QLatin1String("): ") + esc(f.reason);
    return out.join(QLatin1String("<br>"));
}

QString coverageOf(const EvalRecord& r)
{
    const auto& c = r.verification.coverage;
    if (!c) return QStringLiteral("–");
    QString t = c->writtenFraction ? QString::number(100.0 * *c->writtenFraction, 'f', 2) + QLatin1String("% written")
                                   : QObject::tr("written fraction unknown");
    if (c->writtenElements && c->totalElements) t += QObject::tr(" (%1 of %2)").arg(*c->writtenElements).arg(*c->totalElements);
    return t;
}

QString provenanceOf(const Provenance& p)
{
    QStringList parts;
    if (!p.gpu.empty()) parts << esc(p.gpu);
    if (!p.timer.empty()) parts << QObject::tr("timer %1").arg(esc(p.timer));
    if (p.trials) parts << QObject::tr("%1 trials").arg(*p.trials);
    if (p.l2Flush) parts << (*p.l2Flush ? QObject::tr("L2 flushed") : QObject::tr("no L2 flush"));
    if (p.tolerance.atol || p.tolerance.rtol)
        parts << QObject::tr("atol %1 rtol %2")
                     .arg(p.tolerance.atol ? QString::number(*p.tolerance.atol, 'g', 3) : QStringLiteral("–"),
                         p.tolerance.rtol ? QString::number(*p.tolerance.rtol, 'g', 3) : QStringLiteral("–"));
    if (!p.precision.empty()) parts << esc(p.precision);
    return parts.isEmpty() ? QStringLiteral("–") : parts.join(QStringLiteral(" · "));
}

QString speedupOf(const RecordRow& r)
{
    if (std::isnan(r.speedup)) return QStringLiteral("–");
    QString t = QString::number(r.speedup, 'f', 3) + QStringLiteral("×");
    if (r.status != QLatin1String("correct")) t = QLatin1Char('[') + t + QObject::tr("] not correct");
    return t;
}

QString runStats(const ProjectData& data, const QString& run)
{
    std::vector<const EvalRecord*> recs;
    for (std::size_t i = 0; i < data.rows->size(); ++i)
        if ((*data.rows)[i].run == run) recs.push_back(&data.records->records[i]);
    const auto groups = summarize(std::span<const EvalRecord* const>(recs), SummaryOptions{});
    if (groups.empty()) return QStringLiteral("–");
    const GroupSummary& g = groups.front();
    auto ci = [](const std::optional<ConfidenceInterval>& c) {
        return c ? QStringLiteral(" [%1, %2]").arg(c->low, 0, 'f', 3).arg(c->high, 0, 'f', 3) : QString();
    };
    QStringList pk;
    for (const auto& [k, v] : g.passAtK) pk << QStringLiteral("pass@%1 %2").arg(k).arg(v, 0, 'f', 3);
    double fast1 = 0;
    for (const auto& [p, v] : g.fastP)
        if (p == 1.0) fast1 = v;
    return QObject::tr("%1 records, %2 correct (%3%); median speedup %4%5; fast_1 %6; %7")
        .arg(g.records)
        .arg(g.correct)
        .arg(100.0 * g.correctnessRate, 0, 'f', 1)
        .arg(g.medianSpeedup ? QString::number(*g.medianSpeedup, 'f', 3) + QStringLiteral("×") : QStringLiteral("–"))
        .arg(ci(g.medianCi))
        .arg(fast1, 0, 'f', 3)
        .arg(pk.isEmpty() ? QStringLiteral("–") : pk.join(QStringLiteral(", ")));
}

} // namespace

QString compareRecordsHtml(const ProjectData& data, int recordA, int recordB, const QString& sourceA,
    const QString& sourceB)
{
    const auto& rows = *data.rows;
    const auto& recs = data.records->records;
    const RecordRow& ra = rows[static_cast<std::size_t>(recordA)];
    const RecordRow& rb = rows[static_cast<std::size_t>(recordB)];
    const EvalRecord& a = recs[static_cast<std::size_t>(recordA)];
    const EvalRecord& b = recs[static_cast<std::size_t>(recordB)];
    QString h = QLatin1String("<h3 style='margin:2px'>") + QObject::tr("Comparison") + QLatin1String("</h3>");
    h += QLatin1String("<table cellspacing='0' cellpadding='3' border='1' style='border-collapse:collapse'>");
    auto line = [&h](const QString& key, const QString& va, const QString& vb) {
        const bool differ = va != vb;
        // Rows whose values differ are shaded (bgcolor: what Qt's rich text honours on cells).
        const QLatin1String shade = differ ? QLatin1String(" bgcolor='#FFF2CC'") : QLatin1String();
        h += QLatin1String("<tr><td style='color:#555'>") + key + QLatin1String("</td><td") + shade + QLatin1Char('>') +
             va + QLatin1String("</td><td") + shade + QLatin1Char('>') + vb + QLatin1String("</td></tr>");
    };
    line(QObject::tr("Record"), QLatin1String("<b>") + ra.id.toHtmlEscaped() + QLatin1String("</b>"),
        QLatin1String("<b>") + rb.id.toHtmlEscaped() + QLatin1String("</b>"));
    line(QObject::tr("Model"), ra.model.toHtmlEscaped(), rb.model.toHtmlEscaped());
    line(QObject::tr("Run"), ra.run.toHtmlEscaped(), rb.run.toHtmlEscaped());
    line(QObject::tr("Problem"), ra.problem.toHtmlEscaped(), rb.problem.toHtmlEscaped());
    line(QObject::tr("Status"), ra.status.toHtmlEscaped(), rb.status.toHtmlEscaped());
    line(QObject::tr("Speedup"), speedupOf(ra), speedupOf(rb));
    line(QObject::tr("Kernel median"), ms(a.candidate.medianMs), ms(b.candidate.medianMs));
    line(QObject::tr("Kernel mean"), ms(a.candidate.meanMs), ms(b.candidate.meanMs));
    line(QObject::tr("Kernel min / max"), ms(a.candidate.minMs) + QLatin1String(" / ") + ms(a.candidate.maxMs),
        ms(b.candidate.minMs) + QLatin1String(" / ") + ms(b.candidate.maxMs));
    line(QObject::tr("Baseline ms"),
        ra.baselineName.toHtmlEscaped() + QLatin1Char(' ') + (std::isnan(ra.baselineMs) ? QStringLiteral("–") : QString::number(ra.baselineMs, 'g', 4)),
        rb.baselineName.toHtmlEscaped() + QLatin1Char(' ') + (std::isnan(rb.baselineMs) ? QStringLiteral("–") : QString::number(rb.baselineMs, 'g', 4)));
    line(QObject::tr("Timing"), provenanceOf(a.candidate.provenance), provenanceOf(b.candidate.provenance));
    line(QObject::tr("Flags"), flagsOf(a), flagsOf(b));
    line(QObject::tr("Coverage"), coverageOf(a), coverageOf(b));
    if (ra.run != rb.run)
        line(QObject::tr("Whole run (kwb summary)"), runStats(data, ra.run), runStats(data, rb.run));
    h += QLatin1String("</table>");

    if (sourceA.isEmpty() || sourceB.isEmpty()) {
        h += QLatin1String("<p style='color:#555'>") +
             QObject::tr("No source diff: %1 carries no kernel source.")
                 .arg(sourceA.isEmpty() && sourceB.isEmpty() ? QObject::tr("neither record")
                                                             : (sourceA.isEmpty() ? ra.id : rb.id).toHtmlEscaped()) +
             QLatin1String("</p>");
        return h;
    }
    bool tooLarge = false;
    const auto diff = lineDiff(sourceA.split(QLatin1Char('\n')), sourceB.split(QLatin1Char('\n')), &tooLarge);
    if (tooLarge) {
        h += QLatin1String("<p>") + QObject::tr("The sources are longer than %1 lines; not diffed.").arg(kMaxDiffLines) +
             QLatin1String("</p>");
        return h;
    }
    int added = 0, removed = 0;
    for (const auto& d : diff) {
        added += d.op == DiffOp::Added;
        removed += d.op == DiffOp::Removed;
    }
    h += QLatin1String("<h4 style='margin:6px 2px 2px'>") +
         QObject::tr("Source diff: %1 → %2 (%3 lines removed, %4 added)")
             .arg(ra.id.toHtmlEscaped(), rb.id.toHtmlEscaped())
             .arg(removed)
             .arg(added) +
         QLatin1String("</h4><pre style='margin:0'>");
    if (added == 0 && removed == 0) h += QObject::tr("(identical sources)");
    for (const auto& d : diff) {
        const QString t = d.text.toHtmlEscaped();
        switch (d.op) {
        case DiffOp::Same: h += QLatin1String("  ") + t + QLatin1Char('\n'); break;
        case DiffOp::Removed:
            h += QLatin1String("<span style='background:#FADBD8'>- ") + t + QLatin1String("</span>\n");
            break;
        case DiffOp::Added:
            h += QLatin1String("<span style='background:#D5F5E3'>+ ") + t + QLatin1String("</span>\n");
            break;
        }
    }
    h += QLatin1String("</pre>");
    return h;
}

} // namespace kwb::ui
