#pragma once
// Zero acceptance over KernelBench's levels (datasets/zero_acceptance/, the
// table `kwb zeros` writes): per problem, both versions side by side — max
// |value| of the reference and whether all zeros or the constant mean pass
// allclose at 1e-2 and 1e-4 — filtered by level, under the counts per version
// and level beside the paper's "4 of 60". Reader: core/records/zero_acceptance_table.
#include <QString>

#include <memory>
#include <vector>

#include "records/zero_acceptance_table.h"
#include "views/figure_view.h"

class QComboBox;
class QLabel;
class QTableWidget;

namespace kwb::ui {

struct ZeroAcceptanceData {
    QString path;
    QString error;
    ZeroAcceptanceTable table;
};

ZeroAcceptanceData loadZeroAcceptanceData(const QString& path);
// The summary figure: counts per version and level at both tolerances, the paper's claim beside them.
void paintZeroAcceptanceTable(QPainter& painter, const QRectF& rect, const ZeroAcceptanceData& data,
    const FigureStyle& style);

class ZeroAcceptanceView : public FigureView {
    Q_OBJECT
public:
    explicit ZeroAcceptanceView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("zero_acceptance"); }
    void setProjectData(ProjectDataPtr data) override;
    void paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const override;
    QString figureTitle() const override;

    void setLevel(int level); // 0: all levels
    QTableWidget* table() const { return m_table; }
    QString summaryText() const;
    const ZeroAcceptanceData& data() const { return *m_data; }

private:
    void fill();

    std::shared_ptr<const ZeroAcceptanceData> m_data;
    QString m_loadedPath;
    QComboBox* m_level;
    QComboBox* m_only;
    QLabel* m_summary;
    QTableWidget* m_table;
};

} // namespace kwb::ui
