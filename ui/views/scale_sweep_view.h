#pragma once
// The model-scale sweep: addressable fraction (and the GEMM + attention share)
// of GPU time against parameter count, log x, inference and training series,
// with the paper's 80-86% GEMM + attention band and its 8.9-58.2% addressable
// range marked and the project's own workloads (datasets/traces, no parameter
// count) as a strip on the right. Data: core/analysis/scale_sweep over
// datasets/scale_sweep (manifest + core's breakdowns of the traces).
#include <QFutureWatcher>
#include <QString>

#include <memory>
#include <vector>

#include "analysis/scale_sweep.h"
#include "views/figure_view.h"

class QLabel;
class QTableWidget;

namespace kwb::ui {

struct ScaleSweepData {
    QString manifestPath;
    QString device;
    QString error;                       // why there is no sweep ("" when loaded)
    std::vector<ScaleSweepPoint> points;
    struct Ours {
        QString name;
        double addressable = 0;
    };
    std::vector<Ours> ours;              // the project's workloads
};

// Reads the manifest and breaks its traces down (any thread; a few hundred ms).
ScaleSweepData loadScaleSweepData(const QString& manifestPath, const std::vector<WorkloadSummary>& ours);
void paintScaleSweep(QPainter& painter, const QRectF& rect, const ScaleSweepData& data, const FigureStyle& style);

// A log-scaled axis mapping [lo, hi] onto [a, b] (shared by the paper's plots).
struct LogAxis {
    double lo = 1, hi = 10, a = 0, b = 1;
    double map(double v) const;
    std::vector<double> decades() const; // powers of ten within [lo, hi]
};

class ScaleSweepView : public FigureView {
    Q_OBJECT
public:
    explicit ScaleSweepView(QWidget* parent = nullptr);
    ~ScaleSweepView() override;

    QString viewName() const override { return QStringLiteral("scale_sweep"); }
    void setProjectData(ProjectDataPtr data) override;
    bool isBusy() const override;
    void paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const override;
    QString figureTitle() const override;

    const ScaleSweepData& sweep() const { return *m_sweep; }
    QTableWidget* table() const { return m_table; }

private:
    void showSweep();

    std::shared_ptr<const ScaleSweepData> m_sweep;
    QFutureWatcher<std::shared_ptr<const ScaleSweepData>>* m_watcher;
    QWidget* m_canvas;
    QLabel* m_header;
    QTableWidget* m_table;
};

} // namespace kwb::ui
