// One running operation of a session (a save or a sync) as a state machine, which the Session can
// stop early: when the hub's store goes (unpaired), nothing would ever answer its requests.
#pragma once

#include "sessionerror.h"

#include <QObject>

namespace isolation {

class SessionFlow : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    // Ends the flow now with `why`; later callbacks of its work in flight are ignored.
    virtual void abort(const SessionError &why) = 0;
};

} // namespace isolation
