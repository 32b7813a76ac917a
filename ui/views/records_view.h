#pragma once
// The record table with filters (model, level, problem, status, flags) and
// search, and the selected record's metrics, provenance, flags with reasons
// and kernel source (syntax highlighted).
#include <QSet>

#include "models/record_filter_proxy.h"
#include "views/figure_view.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableView;
class QTabWidget;
class QTextBrowser;

namespace kwb::ui {

class RecordTableModel;
class RerunPanel;
class RerunService;

class RecordsView : public FigureView {
    Q_OBJECT
public:
    explicit RecordsView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("records"); }
    void setProjectData(ProjectDataPtr data) override;
    // The figure: the filtered, sorted table typeset (export/table_figure.h), not a screenshot.
    void paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const override;
    QString figureTitle() const override;

    RecordFilter filter() const;
    void setFilter(const RecordFilter& filter);
    // Shows only these records (a chart click), with a note saying why.
    void showPicked(const QSet<int>& records, const QString& description);
    void clearPicked();
    void selectRecord(int recordIndex);
    void focusSearch(); // Ctrl+F
    // The selected rows as TSV or Markdown, as shown (also Ctrl+C and the table's context menu).
    QString selectedRowsText(bool markdown) const;
    void copySelectedRows(bool markdown) const;
    // The filtered, sorted table as CSV; false and *error ("FILE: reason") when it cannot be written.
    bool exportCsv(const QString& path, QString* error) const;
    // Adds the "Live re-run" tab beside the details (the window's one service).
    void attachRerun(RerunService* service);
    RerunPanel* rerunPanel() const { return m_rerunPanel; }
    // Shows the re-run tab of the selected record and starts its re-run; false (and why) when it cannot.
    bool rerunSelected(QString* reason);
    int currentRecord() const; // -1 when none

    RecordTableModel* model() const { return m_model; }
    RecordFilterProxy* proxy() const { return m_proxy; }
    QTableView* table() const { return m_table; }
    QString detailHtml() const;
    // The record whose details the pane shows (-1: none).
    int shownRecord() const;
    QString sourceShown() const;

    // The two selected rows side by side in the Compare tab; false and *reason otherwise.
    bool compareSelected(QString* reason);
    bool compareRecords(int recordA, int recordB, QString* reason);
    QString comparisonHtml() const;
    // What the filters pass (chart picks aside), as the views that follow the filters use it.
    RecordSubset filteredSubset() const;

Q_SIGNALS:
    void recordSelected(int recordIndex);
    // The filters changed what they pass (after a filter or a load was applied).
    void filterSubsetChanged(const kwb::ui::RecordSubset& subset);

private:
    void applyFilterFromControls();
    void updateCount();
    void showDetail(int recordIndex);
    void syncDetailWithTable();
    static void fillCombo(QComboBox* combo, const QString& anyText, const QStringList& values);

    ProjectDataPtr m_data;
    RecordTableModel* m_model;
    RecordFilterProxy* m_proxy;
    QTableView* m_table;
    QLineEdit* m_search;
    QComboBox* m_modelBox;
    QComboBox* m_levelBox;
    QComboBox* m_problemBox;
    QComboBox* m_statusBox;
    QComboBox* m_flagBox;
    QLabel* m_count;
    QLabel* m_pickNote;
    QPushButton* m_showAll;
    QTextBrowser* m_detail;
    QPlainTextEdit* m_source;
    QTextBrowser* m_compare = nullptr;
    QTabWidget* m_detailTabs = nullptr;
    RerunPanel* m_rerunPanel = nullptr;
    bool m_updating = false;
    int m_shownRecord = -1;
    RecordFilter m_emittedFilter;          // the filter filterSubsetChanged last described
    const ProjectData* m_emittedFor = nullptr;
};

} // namespace kwb::ui
