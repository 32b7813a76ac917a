#pragma once
// The live re-run panel: a button to re-run the selected record, progress,
// cancel, and the result with its flags. Disabled, with the reason shown,
// when re-runs cannot run here (no client in the build, no kwb-runner, no GPU).
#include <QWidget>

#include "views/rerun_service.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTextBrowser;

namespace kwb::ui {

// One line for logs and the command line: "record ID: status ok on DEVICE · speedup 1.23× · flags: a; b".
QString outcomeSummary(const RerunOutcome& outcome, const QString& recordId = QString());

class RerunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RerunPanel(RerunService* service, QWidget* parent = nullptr);

    void setProjectData(ProjectDataPtr data);
    void setRecord(int recordIndex);
    // Starts a re-run of the current record (the button does the same).
    void rerun();

    QString stateText() const;
    QString resultText() const;
    int record() const { return m_record; }
    // This panel's re-run is in flight.
    bool isRunning() const { return m_awaiting; }
    // The outcome shown last (record -1 before any).
    const RerunOutcome& lastOutcome() const { return m_lastOutcome; }
    bool rerunEnabled() const;

Q_SIGNALS:
    void liveCoverage(const kwb::Coverage& coverage, const QString& title);
    // A re-run this panel started has finished and its result is on screen.
    void outcomeShown(const kwb::ui::RerunOutcome& outcome);

private:
    void updateState();
    void showOutcome(const RerunOutcome& outcome);

    RerunService* m_service;
    ProjectDataPtr m_data;
    int m_record = -1;
    bool m_awaiting = false; // this panel started the running re-run
    RerunOutcome m_lastOutcome;
    QLabel* m_state;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QTextBrowser* m_result;
};

} // namespace kwb::ui
