#pragma once
// Base of the workbench views: each shows part of a loaded project and can
// draw itself as a figure (export, `kwb figures`, screenshots).
#include <QWidget>

#include "export/figure_exporter.h"
#include "project/project_data.h"

namespace kwb::ui {

class FigureView : public QWidget, public FigureSource {
    Q_OBJECT
public:
    using QWidget::QWidget;

    virtual QString viewName() const = 0; // "records", "distributions", ...
    // Main thread. Swaps in a new project; cheap (heavy work goes to the pool).
    virtual void setProjectData(ProjectDataPtr data) = 0;
    // Background work of this view still running (screenshots and tests wait on it).
    virtual bool isBusy() const { return false; }

    QString figureTitle() const override;
    // Default: the widget itself, scaled uniformly into rect (tables, panels).
    void paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const override;

Q_SIGNALS:
    void statusMessage(const QString& message);
    // A setting the project file stores (filter, chart kind, grouping) changed.
    void settingsChanged();
};

} // namespace kwb::ui
