// Approves or denies a pairing code the way a member's browser does: loads the hub's approval
// page (which signs the local member in with a cookie), submits the code, and answers the page
// that shows the computer's name and when it asked — each form sent with the page's Origin, as a
// browser sends it (the hub takes forms only from its own origin).
#pragma once

#include <QString>
#include <QUrl>

namespace isolation::test {

struct PageAnswer
{
    int status = 0;
    QString html;
};

PageAnswer submitApprovalPage(const QUrl &appUrl, const QString &code, bool approve = true);

} // namespace isolation::test
