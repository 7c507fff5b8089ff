// The Changes tab's diff of one file, read like GitHub Desktop's: added lines on a green ground,
// removed lines on a red one, hunk headers ("@@ -1,3 +1,4 @@") on a blue one, the old and the new
// line numbers in two gutters left of the text. The text stays the unified diff (copying a
// selection copies "+added"), the numbers are painted beside it. The tints are mixed from the
// palette's base colour, so they read in light and dark themes alike, and follow a palette change.
#pragma once

#include <QColor>
#include <QPlainTextEdit>

#include <vector>

class QPalette;

namespace isolation {

class DiffView final : public QPlainTextEdit
{
    Q_OBJECT
public:
    enum class Kind {
        File, // diff --git, index, ---, +++, mode lines
        Hunk, // @@ -a,b +c,d @@
        Context,
        Added,
        Removed,
        Note, // "\ No newline at end of file", or a message instead of a diff
    };
    struct Line
    {
        Kind kind = Kind::Note;
        int oldLine = 0; // 0: none (an added line, a header)
        int newLine = 0; // 0: none (a removed line, a header)
    };
    // The background and text colours of each kind of line on a palette.
    struct Colours
    {
        QColor added;
        QColor removed;
        QColor hunk;
        QColor hunkText;
        QColor gutterText;
    };

    explicit DiffView(QWidget *parent = nullptr);

    // A unified diff (git's format), coloured and numbered; `footnote` (when given) a last line of
    // its own, as a note.
    void setDiff(const QString &unified, const QString &footnote = {});
    // A sentence instead of a diff ("Reading…", "a binary file"): plain, no numbers.
    void setMessage(const QString &text);

    // What each line of the document is: block i of document() is line(i).
    int lineCount() const { return int(m_lines.size()); }
    Line line(int block) const;
    static Colours coloursFor(const QPalette &palette);

    // The gutters' width, and their painting (called by the gutter widget).
    int gutterWidth() const;
    void paintGutter(QPaintEvent *event);

protected:
    void changeEvent(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void render();
    void layoutGutter();
    void updateGutter(const QRect &rect, int dy);
    QColor background(Kind kind) const;

    QWidget *m_gutter = nullptr;
    QString m_text; // as given: rendered again on a palette change
    QString m_footnote;
    bool m_isDiff = false;
    std::vector<Line> m_lines;
    int m_digits = 1; // of the largest line number
    Colours m_colours;
};

} // namespace isolation
