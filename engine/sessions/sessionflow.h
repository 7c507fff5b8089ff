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
};

} // namespace isolation
