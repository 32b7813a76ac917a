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

class RerunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RerunPanel(RerunService* service, QWidget* parent = nullptr);

    void setProjectData(ProjectDataPtr data);
    void setRecord(int recordIndex);
    // Starts a re-run of the current record (the button does the same).
    void rerun();

    QString stateText() const;
    bool rerunEnabled() const;

Q_SIGNALS:
    void liveCoverage(const kwb::Coverage& coverage, const QString& title);

private:
    void updateState();
    void showOutcome(const RerunOutcome& outcome);

    RerunService* m_service;
    ProjectDataPtr m_data;
    int m_record = -1;
    QLabel* m_state;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QTextBrowser* m_result;
};

} // namespace kwb::ui
