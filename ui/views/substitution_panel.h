#pragma once
// Measured against projected (issue 16 item 4), beside the workloads view's
// projection: for each measured substitution found beside the project (DLRM:
// datasets/kernelbench_dlrm/evaluations/substitution_h200.json; GPT-2:
// datasets/kernelbench_transformer/evaluations/substitution_gpt2_h200.json),
// the measured end-to-end saving per phase next to the projection
// f*w*(1-1/s) and the Amdahl bound — the script's own where it has one, else
// the project's projection of the trace the substitution ran (kwb project's).
#include <QWidget>

#include "project/project_data.h"
#include "records/substitution_result.h"

class QLabel;
class QTableWidget;

namespace kwb::ui {

class SubstitutionPanel : public QWidget {
    Q_OBJECT
public:
    explicit SubstitutionPanel(QWidget* parent = nullptr);
    void setProjectData(const ProjectDataPtr& project);
    QTableWidget* table() const { return m_table; }

private:
    QLabel* m_note;
    QTableWidget* m_table;
};

} // namespace kwb::ui
