// One running operation of a session (a save or a sync) as a state machine, which the Session can
// stop early: when the hub's store goes (unpaired), nothing would ever answer its requests.
#pragma once

#include "sessionerror.h"

#include <QObject>

namespace isolation {

// How often a flow reads the manifest again when a segment it names went away (another engine
// compacted the chain after the manifest was read), before it gives up.
inline constexpr int kMaxManifestRefetches = 5;

class SessionFlow : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    // Ends the flow now with `why`; later callbacks of its work in flight are ignored.
    virtual void abort(const SessionError &why) = 0;
    // The member asks to stop: the flow stops at its next safe point, undoes what it did and ends
    // Cancelled. False when it is past its point of no return (a save's manifest on its way to the
    // hub, say): it then ends as it would have.
    virtual bool cancel() { return false; }
    // Whether cancel() would be taken now (shown with the progress, for a Cancel button).
    virtual bool cancellable() const { return false; }
};

} // namespace isolation
