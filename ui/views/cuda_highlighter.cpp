#include "views/cuda_highlighter.h"

namespace kwb::ui {

CudaHighlighter::CudaHighlighter(QTextDocument* document)
    : QSyntaxHighlighter(document), m_blockStart(QStringLiteral("/\\*")), m_blockEnd(QStringLiteral("\\*/"))
{
    QTextCharFormat keyword;
    keyword.setForeground(QColor(0x00, 0x50, 0x9E));
    keyword.setFontWeight(QFont::Bold);
    QTextCharFormat cuda;
    cuda.setForeground(QColor(0xA0, 0x40, 0x00));
    cuda.setFontWeight(QFont::Bold);
    QTextCharFormat type;
    type.setForeground(QColor(0x00, 0x7A, 0x55));
    QTextCharFormat number;
    number.setForeground(QColor(0x8E, 0x44, 0x8C));
    QTextCharFormat string;
    string.setForeground(QColor(0xB0, 0x3A, 0x00));
    QTextCharFormat preprocessor;
    preprocessor.setForeground(QColor(0x66, 0x66, 0x66));
    m_comment.setForeground(QColor(0x70, 0x70, 0x70));
    m_comment.setFontItalic(true);

    const QString keywords = QStringLiteral(
        "\\b(?:if|else|for|while|do|return|break|continue|switch|case|default|struct|class|template|typename|"
        "const|constexpr|static|inline|extern|namespace|using|auto|sizeof|def|import|from|self|None|True|False|"
        "in|and|or|not|lambda|with|as|pass|raise|try|except)\\b");
    const QString cudaWords = QStringLiteral(
        "\\b(?:__global__|__device__|__host__|__shared__|__constant__|__restrict__|__syncthreads|__syncwarp|"
        "__shfl_down_sync|__shfl_xor_sync|__launch_bounds__|threadIdx|blockIdx|blockDim|gridDim|warpSize|"
        "atomicAdd|cudaStream_t|load_inline)\\b");
    const QString types = QStringLiteral(
        "\\b(?:void|bool|char|short|int|long|unsigned|signed|float|double|half|__half|__nv_bfloat16|float2|float4|"
        "int2|int4|size_t|int64_t|int32_t|uint32_t|uint64_t|torch|Tensor)\\b");
    m_rules.append({QRegularExpression(keywords), keyword});
    m_rules.append({QRegularExpression(cudaWords), cuda});
    m_rules.append({QRegularExpression(types), type});
    m_rules.append({QRegularExpression(QStringLiteral("\\b[0-9]+(?:\\.[0-9]*)?(?:[eE][-+]?[0-9]+)?[fFuUlL]*\\b")),
        number});
    m_rules.append({QRegularExpression(QStringLiteral("^\\s*#\\s*[a-z]+\\b[^\\n]*")), preprocessor});
    m_rules.append({QRegularExpression(QStringLiteral("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'")), string});
    m_rules.append({QRegularExpression(QStringLiteral("//[^\\n]*")), m_comment});
}

void CudaHighlighter::highlightBlock(const QString& text)
{
    for (const auto& rule : m_rules) {
        auto it = rule.pattern.globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), rule.format);
        }
    }
    // Block comments span lines: state 1 = inside one.
    setCurrentBlockState(0);
    qsizetype start = 0;
    if (previousBlockState() != 1) {
        const auto m = m_blockStart.match(text);
        start = m.hasMatch() ? m.capturedStart() : -1;
    }
    while (start >= 0) {
        const auto end = m_blockEnd.match(text, start);
        qsizetype length;
        if (!end.hasMatch()) {
            setCurrentBlockState(1);
            length = text.length() - start;
        } else {
            length = end.capturedEnd() - start;
        }
        setFormat(static_cast<int>(start), static_cast<int>(length), m_comment);
        const auto next = m_blockStart.match(text, start + length);
        start = next.hasMatch() ? next.capturedStart() : -1;
    }
}

} // namespace kwb::ui
