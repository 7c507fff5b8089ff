// The way back from a sandbox to the engine: a directory of the session's (DATA/sessions/<id>/
// control) bind-mounted at /run/isolation, where a process in the sandbox — the agent, or a member
// in a terminal view — drops a request file and reads the engine's answer file. execd is one-way
// (the engine calls it), and nothing of the engine listens on a network the sandbox can reach, so a
// shared directory watched with inotify is the channel. The sandbox is untrusted: every file is
// opened relative to the directory, without following links, without blocking on a FIFO, and read
// to at most 4 KiB; answers are written beside and renamed into place. docs/runtime.md, "Saves asked
// from the sandbox", specifies the files. On the event loop.
#pragma once

#include <QObject>
#include <QSet>
#include <QString>

class QFileSystemWatcher;

namespace isolation {

class SandboxControl final : public QObject
{
    Q_OBJECT
public:
    static constexpr const char *kMountPath = "/run/isolation"; // where the sandbox sees it
    static constexpr qsizetype kMaxRequestBytes = 4096;
    static constexpr int kMaxOutstanding = 16; // requests taken and not yet answered

    // The answer's first word, which the `save` and `sync` scripts turn into their exit status.
    enum class Outcome { Saved, Unchanged, MovedOn, Refused, Failed, Synced, Conflict };

    // `directory` is made (0755) when missing. Nothing is watched before start().
    explicit SandboxControl(QString directory, QObject *parent = nullptr);
    ~SandboxControl() override;

    QString directory() const { return m_dir; }
    // Makes the directory, writes the `save` script, removes answers and requests a crash or an
    // earlier run left, and watches for new requests. False (with why) when the directory cannot be
    // used; the sandbox then simply has no way to ask.
    bool start(QString *why = nullptr);
    // Answers request `id` (as saveRequested named it) and forgets it.
    void answer(const QString &id, Outcome outcome, const QString &text);
    int outstanding() const { return int(m_taken.size()); }

    static QString outcomeWord(Outcome outcome);
    // The POSIX sh scripts written as `save` and `sync` into the directory (run in the sandbox).
    static QByteArray saveScript();
    static QByteArray syncScript();

Q_SIGNALS:
    // A process in the sandbox asked for a save of everything that changed. `message` is the save
    // message it gave (UTF-8, control characters replaced; may be empty).
    void saveRequested(const QString &id, const QString &message);
    // It asked for a sync: main's new saves merged into the session; `resolve`: leave conflict
    // markers in the files instead of stopping.
    void syncRequested(const QString &id, bool resolve);

private:
    void scan();
    bool writeFile(const QByteArray &name, const QByteArray &content, int mode);

    QString m_dir;
    int m_dirFd = -1;
    QFileSystemWatcher *m_watcher = nullptr;
    bool m_scanQueued = false;
    QSet<QString> m_taken;
};

} // namespace isolation
