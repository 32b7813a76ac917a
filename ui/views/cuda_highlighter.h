#pragma once
// Syntax highlighting for kernel sources: CUDA C++ and the Python files
// (KernelBench's ModelNew with inline CUDA) that carry them.
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace kwb::ui {

class CudaHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit CudaHighlighter(QTextDocument* document);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    QList<Rule> m_rules;
    QTextCharFormat m_comment;
    QRegularExpression m_blockStart;
    QRegularExpression m_blockEnd;
};

} // namespace kwb::ui
