#include "views/rerun_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <cmath>

#include <utility>

namespace kwb::ui {

namespace {

// "through /opt/kwb/bin/kwb-runner" reads "through kwb-runner": the folder says
// nothing to the reader and would put this machine's layout into screenshots.
QString withoutFolders(QString text)
{
    static const QRegularExpression path(QStringLiteral("(^|[\\s(])/(?:[^\\s/]+/)+([^\\s/]+)"));
    return text.replace(path, QStringLiteral("\\1\\2"));
}

} // namespace

QString outcomeSummary(const RerunOutcome& o, const QString& recordId)
{
    QString line = recordId.isEmpty() ? QString() : QObject::tr("record %1: ").arg(recordId);
    if (!o.completed) return line + QObject::tr("not served: %1").arg(o.message);
    line += QObject::tr("status %1").arg(o.status);
    if (!o.device.isEmpty()) line += QObject::tr(" on %1").arg(o.device);
    if (!std::isnan(o.speedup)) line += QObject::tr(" · speedup %1×").arg(o.speedup, 0, 'f', 3);
    if (!std::isnan(o.candidateMs)) line += QObject::tr(" · kernel %1 ms").arg(o.candidateMs, 0, 'g', 4);
    if (!std::isnan(o.referenceMs)) line += QObject::tr(" · reference %1 ms").arg(o.referenceMs, 0, 'g', 4);
    if (o.coverage && o.coverage->writtenFraction)
        line += QObject::tr(" · %1% written").arg(100.0 * *o.coverage->writtenFraction, 0, 'f', 2);
    line += o.flags.isEmpty() ? QObject::tr(" · no flags") : QObject::tr(" · flags: ") + o.flags.join(QLatin1String("; "));
    return line;
}

RerunPanel::RerunPanel(RerunService* service, QWidget* parent)
    : QWidget(parent),
      m_service(service),
      m_data(std::make_shared<ProjectData>()),
      m_state(new QLabel),
      m_run(new QPushButton(tr("Re-run live"))),
      m_cancel(new QPushButton(tr("Cancel"))),
      m_progress(new QProgressBar),
      m_result(new QTextBrowser)
{
    m_state->setWordWrap(true);
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancel->hide();
    m_result->setMaximumHeight(140);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_run);
    bar->addWidget(m_progress, 1);
    bar->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_state);
    layout->addLayout(bar);
    layout->addWidget(m_result);
    layout->addStretch(1); // the state line stays on top in a tall tab
    connect(m_run, &QPushButton::clicked, this, &RerunPanel::rerun);
    connect(m_cancel, &QPushButton::clicked, m_service, &RerunService::cancel);
    connect(m_service, &RerunService::availabilityChanged, this, &RerunPanel::updateState);
    connect(m_service, &RerunService::progress, this, [this](const QString& stage, qint64 done, qint64 total) {
        m_progress->setFormat(stage + QLatin1String(" %v/%m"));
        m_progress->setRange(0, total > 0 ? static_cast<int>(total) : 0);
        m_progress->setValue(static_cast<int>(done));
    });
    connect(m_service, &RerunService::finished, this, &RerunPanel::showOutcome);
    updateState();
}

void RerunPanel::setProjectData(ProjectDataPtr next)
{
    m_data = next ? std::move(next) : std::make_shared<ProjectData>();
    m_service->setProject(m_data); // indexes the project's specs off the GUI thread
    m_record = -1;
    updateState();
}

void RerunPanel::setRecord(int recordIndex)
{
    m_record = recordIndex;
    updateState();
}

QString RerunPanel::resultText() const
{
    return m_result->toPlainText();
}

QString RerunPanel::stateText() const
{
    return m_state->text();
}

bool RerunPanel::rerunEnabled() const
{
    return m_run->isEnabled();
}

void RerunPanel::updateState()
{
    const bool running = m_service->isRunning();
    m_progress->setVisible(running);
    m_cancel->setVisible(running);
    QString reason;
    if (!m_service->canRerun(m_data.get(), m_record, &reason) && (m_record >= 0 || !m_service->isAvailable())) {
        m_state->setText(tr("Live re-run unavailable: %1").arg(withoutFolders(reason)));
        m_run->setEnabled(false);
        return;
    }
    m_state->setText(withoutFolders(reason)); // the "available" line names the device
    m_run->setEnabled(!running && m_record >= 0);
}

void RerunPanel::rerun()
{
    QString reason;
    if (!m_service->start(m_data, m_record, &reason)) {
        m_result->setHtml(QLatin1String("<p style='color:#D55E00'>") + reason.toHtmlEscaped() + QLatin1String("</p>"));
        return;
    }
    m_awaiting = true;
    m_progress->setRange(0, 0);
    m_progress->setFormat(tr("starting"));
    m_result->setHtml(tr("<p>Re-running in an isolated kwb-runner process…</p>"));
    updateState();
}

void RerunPanel::showOutcome(const RerunOutcome& o)
{
    updateState();
    // Another panel's re-run: shown here only when it is of this panel's record.
    const bool mine = std::exchange(m_awaiting, false);
    if (!mine && o.record != m_record) return;
    QString h;
    if (!o.completed) {
        h = QLatin1String("<p style='color:#D55E00'>") + tr("The re-run could not be served: ") + o.message.toHtmlEscaped() +
            QLatin1String("</p>");
    } else {
        h = QLatin1String("<p><b>") + tr("Status: %1").arg(o.status) + QLatin1String("</b>");
        if (o.record >= 0 && static_cast<std::size_t>(o.record) < m_data->rows->size())
            h += tr(" for %1").arg((*m_data->rows)[static_cast<std::size_t>(o.record)].id.toHtmlEscaped());
        if (!o.device.isEmpty()) h += tr(" on %1").arg(o.device.toHtmlEscaped());
        if (!std::isnan(o.speedup)) h += tr(" · speedup %1×").arg(o.speedup, 0, 'f', 3);
        if (!std::isnan(o.candidateMs)) h += tr(" · kernel %1 ms").arg(o.candidateMs, 0, 'g', 4);
        if (!std::isnan(o.referenceMs)) h += tr(" · reference %1 ms").arg(o.referenceMs, 0, 'g', 4);
        h += QLatin1String("</p>");
        if (!o.message.isEmpty()) h += QLatin1String("<p><tt>") + o.message.toHtmlEscaped() + QLatin1String("</tt></p>");
        if (o.flags.isEmpty()) {
            h += tr("<p>No flags raised.</p>");
        } else {
            h += QLatin1String("<ul>");
            for (const auto& f : o.flags) h += QLatin1String("<li>") + f.toHtmlEscaped() + QLatin1String("</li>");
            h += QLatin1String("</ul>");
        }
        if (mine && o.coverage && o.record >= 0 && static_cast<std::size_t>(o.record) < m_data->rows->size())
            Q_EMIT liveCoverage(*o.coverage, tr("%1 (live)").arg((*m_data->rows)[static_cast<std::size_t>(o.record)].id));
    }
    m_result->setHtml(h);
    m_lastOutcome = o;
    if (mine) Q_EMIT outcomeShown(o);
}

} // namespace kwb::ui
