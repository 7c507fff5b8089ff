// One save of a session: settle a save left open; commit the selection on the session branch;
// check the hub is still at the ETag the session remembers; merge into main; write the segment
// (thin, or full when the chain needs compacting); encrypt and upload it; compare-and-swap the
// manifest. 412 → the merge is undone ("moved on"); a lost answer → settled by the save id.
#pragma once

#include "session.h"
#include "sessionflow.h"
#include "sessionreports.h"

#include "store/manifest.h"
#include "store/workspacestore.h"

#include <atomic>
#include <memory>
#include <optional>

namespace isolation {

class SaveFlow final : public SessionFlow
{
    Q_OBJECT
public:
    // `resumed`: the engine runs again a save it was stopped in the middle of.
    SaveFlow(Session &session, QStringList files, QString message, bool resumed, QObject *parent = nullptr);
    ~SaveFlow() override;

    void run(Session::Done<SaveReport> done);
    void abort(const SessionError &why) override;
    bool cancel() override;
    bool cancellable() const override;

private:
    void commit();
    void checkBase();
    void merge();
    void writeSegment();
    void upload();
    void linkIntoCache();
    void publish(bool retry);
    void published(const QByteArray &etag, bool ours);
    void notPublished(const SessionError &why);
    void finish(Result<SaveReport, SessionError> result);

    Session &m_session;
    QStringList m_files;
    QString m_message;
    Session::Done<SaveReport> m_done;
    SaveReport m_report;
    bool m_settledPublished = false; // a save left open was found published by the hub
    Manifest m_base; // the manifest at the session's ETag: what this save builds on
    Manifest m_next;
    SegmentResult m_segment;
    SegmentKind m_kind = SegmentKind::Thin;
    // Cancel: asked for (read by the segment's writer on the worker too), and the point of no
    // return passed (the manifest is on its way).
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    bool m_publishing = false;
    // Stops here when cancelled: the merge undone when `merged`; true when it stopped.
    bool stoppedByCancel(bool merged);
    int m_at = 0; // the segment replaces m_base.segments[m_at…] (Manifest::nextSegmentAt())
    QString m_segmentFile;
    ManifestSegment m_uploaded;
    // Whether the warm cache took this save's objects while the segment was uploaded (set on the
    // worker by linkIntoCache(), read there by the finish); empty when that did not run.
    std::shared_ptr<std::optional<bool>> m_linked = std::make_shared<std::optional<bool>>();
};

} // namespace isolation
