#include "diffview.h"

#include <QEvent>
#include <QFont>
#include <QPainter>
#include <QRegularExpression>
#include <QTextBlock>
#include <QTextCursor>

#include <algorithm>

namespace isolation {

namespace {

// The gutters: a child widget over the view's left margin that asks the view to paint it.
class Gutter final : public QWidget
{
public:
    explicit Gutter(DiffView *view)
        : QWidget(view)
        , m_view(view)
    { }
    QSize sizeHint() const override { return {m_view->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent *event) override { m_view->paintGutter(event); }

private:
    DiffView *m_view;
};

QColor mix(const QColor &from, const QColor &to, double share)
{
    const auto channel = [share](int a, int b) { return int(a + (b - a) * share + 0.5); };
    return QColor(channel(from.red(), to.red()), channel(from.green(), to.green()), channel(from.blue(), to.blue()));
}

// "@@ -12,3 +12,4 @@ context": the first old and new line, and how many lines each side has.
struct HunkHeader
{
    int oldStart = 0;
    int oldCount = 0;
    int newStart = 0;
    int newCount = 0;
};

bool parseHunk(const QString &line, HunkHeader *hunk)
{
    static const QRegularExpression re(QStringLiteral("^@@ -(\\d+)(?:,(\\d+))? \\+(\\d+)(?:,(\\d+))? @@"));
    const QRegularExpressionMatch m = re.match(line);
    if (!m.hasMatch())
        return false;
    hunk->oldStart = m.captured(1).toInt();
    hunk->oldCount = m.captured(2).isEmpty() ? 1 : m.captured(2).toInt();
    hunk->newStart = m.captured(3).toInt();
    hunk->newCount = m.captured(4).isEmpty() ? 1 : m.captured(4).toInt();
    return true;
}

} // namespace

DiffView::DiffView(QWidget *parent)
    : QPlainTextEdit(parent)
    , m_gutter(new Gutter(this))
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    m_colours = coloursFor(palette());
    connect(this, &QPlainTextEdit::updateRequest, this, &DiffView::updateGutter);
    layoutGutter();
}

DiffView::Colours DiffView::coloursFor(const QPalette &palette)
{
    // GitHub's greens, reds and blues, laid thinly over the palette's base: the text keeps nearly
    // the contrast it has on the base, light or dark.
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    const bool dark = base.lightness() < 128;
    Colours c;
    c.added = mix(base, QColor(0x2e, 0xa0, 0x43), dark ? 0.30 : 0.22);
    c.removed = mix(base, QColor(0xf8, 0x51, 0x49), dark ? 0.30 : 0.20);
    c.hunk = mix(base, QColor(0x38, 0x8b, 0xfd), dark ? 0.25 : 0.14);
    c.hunkText = mix(text, base, 0.25);
    c.gutterText = mix(text, base, 0.30);
    return c;
}

DiffView::Line DiffView::line(int block) const
{
    return block >= 0 && block < lineCount() ? m_lines[size_t(block)] : Line {};
}

void DiffView::setDiff(const QString &unified, const QString &footnote)
{
    m_text = unified;
    m_footnote = footnote;
    m_isDiff = true;
    render();
}

void DiffView::setMessage(const QString &text)
{
    m_text = text;
    m_footnote.clear();
    m_isDiff = false;
    render();
}

QColor DiffView::background(Kind kind) const
{
    switch (kind) {
    case Kind::Added:
        return m_colours.added;
    case Kind::Removed:
        return m_colours.removed;
    case Kind::Hunk:
        return m_colours.hunk;
    case Kind::File:
    case Kind::Context:
    case Kind::Note:
        break;
    }
    return {};
}

void DiffView::render()
{
    m_colours = coloursFor(palette());
    m_lines.clear();
    QStringList lines = m_text.split(QLatin1Char('\n'));
    if (lines.size() > 1 && lines.last().isEmpty())
        lines.removeLast();
    HunkHeader hunk;
    int oldLine = 0, newLine = 0, oldLeft = 0, newLeft = 0, largest = 0;
    for (const QString &text : std::as_const(lines)) {
        Line l;
        const bool inHunk = oldLeft > 0 || newLeft > 0;
        if (!m_isDiff) {
            l.kind = Kind::Note;
        } else if (inHunk && text.startsWith(QLatin1Char('+'))) {
            l = {Kind::Added, 0, newLine++};
            newLeft = std::max(0, newLeft - 1);
        } else if (inHunk && text.startsWith(QLatin1Char('-'))) {
            l = {Kind::Removed, oldLine++, 0};
            oldLeft = std::max(0, oldLeft - 1);
        } else if (inHunk && (text.startsWith(QLatin1Char(' ')) || text.isEmpty())) {
            l = {Kind::Context, oldLine++, newLine++};
            oldLeft = std::max(0, oldLeft - 1);
            newLeft = std::max(0, newLeft - 1);
        } else if (text.startsWith(QLatin1Char('\\'))) {
            l.kind = Kind::Note; // "\ No newline at end of file"
        } else if (parseHunk(text, &hunk)) {
            l.kind = Kind::Hunk;
            oldLine = hunk.oldStart;
            newLine = hunk.newStart;
            oldLeft = hunk.oldCount;
            newLeft = hunk.newCount;
            largest = std::max({largest, hunk.oldStart + hunk.oldCount, hunk.newStart + hunk.newCount});
        } else {
            l.kind = Kind::File;
            oldLeft = newLeft = 0;
        }
        m_lines.push_back(l);
    }
    if (!m_footnote.isEmpty()) {
        lines << m_footnote;
        m_lines.push_back({Kind::Note, 0, 0});
    }
    m_digits = int(QString::number(std::max(largest, 1)).size());

    // One block per line, its kind's ground across the whole width.
    QTextDocument *doc = document();
    doc->clear();
    QTextCursor cursor(doc);
    cursor.beginEditBlock();
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const Kind kind = m_lines[size_t(i)].kind;
        QTextBlockFormat block;
        if (const QColor bg = background(kind); bg.isValid())
            block.setBackground(bg);
        QTextCharFormat chars;
        if (kind == Kind::Hunk)
            chars.setForeground(m_colours.hunkText);
        else if (kind == Kind::File)
            chars.setFontWeight(QFont::Bold);
        else if (kind == Kind::Note && m_isDiff)
            chars.setFontItalic(true);
        if (i == 0) {
            cursor.setBlockFormat(block);
            cursor.setBlockCharFormat(chars);
        } else {
            cursor.insertBlock(block, chars);
        }
        cursor.insertText(lines.at(i), chars);
    }
    cursor.endEditBlock();
    layoutGutter();
}

void DiffView::layoutGutter()
{
    setViewportMargins(gutterWidth(), 0, 0, 0);
    const QRect r = contentsRect();
    m_gutter->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
    m_gutter->update();
}

int DiffView::gutterWidth() const
{
    // Two columns of numbers (old, new), each with a little room on both sides.
    const int column = fontMetrics().horizontalAdvance(QLatin1Char('9')) * m_digits + 8;
    return m_isDiff ? 2 * column + 2 : 0;
}

void DiffView::updateGutter(const QRect &rect, int dy)
{
    if (dy)
        m_gutter->scroll(0, dy);
    else
        m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
}

void DiffView::resizeEvent(QResizeEvent *event)
{
    QPlainTextEdit::resizeEvent(event);
    layoutGutter();
}

void DiffView::changeEvent(QEvent *event)
{
    QPlainTextEdit::changeEvent(event);
    // A theme switched from light to dark (or back): the grounds are mixed again.
    if (event->type() == QEvent::PaletteChange)
        render();
    if (event->type() == QEvent::FontChange)
        layoutGutter();
}

void DiffView::paintEvent(QPaintEvent *event)
{
    // QPlainTextEdit draws a block's ground only as wide as the longest line: draw it across the
    // whole view first, as a diff reads best.
    {
        QPainter painter(viewport());
        const QPointF offset = contentOffset();
        for (QTextBlock block = firstVisibleBlock(); block.isValid(); block = block.next()) {
            const QRectF r = blockBoundingGeometry(block).translated(offset);
            if (r.top() > event->rect().bottom())
                break;
            if (const QColor bg = background(line(block.blockNumber()).kind); bg.isValid())
                painter.fillRect(QRectF(0, r.top(), viewport()->width(), r.height()), bg);
        }
    }
    QPlainTextEdit::paintEvent(event);
}

void DiffView::paintGutter(QPaintEvent *event)
{
    QPainter painter(m_gutter);
    painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    painter.setFont(font());
    const int column = gutterWidth() / 2;
    QTextBlock block = firstVisibleBlock();
    int top = int(blockBoundingGeometry(block).translated(contentOffset()).top());
    while (block.isValid() && top <= event->rect().bottom()) {
        const int height = int(blockBoundingRect(block).height());
        const Line l = line(block.blockNumber());
        if (block.isVisible() && top + height >= event->rect().top()) {
            if (const QColor bg = background(l.kind); bg.isValid())
                painter.fillRect(0, top, gutterWidth(), height, bg.darker(l.kind == Kind::Hunk ? 100 : 106));
            painter.setPen(m_colours.gutterText);
            if (l.oldLine > 0)
                painter.drawText(
                    QRect(0, top, column - 4, height), Qt::AlignRight | Qt::AlignVCenter, QString::number(l.oldLine));
            if (l.newLine > 0)
                painter.drawText(QRect(column, top, column - 4, height), Qt::AlignRight | Qt::AlignVCenter,
                    QString::number(l.newLine));
        }
        block = block.next();
        top += height;
    }
}

} // namespace isolation
