// Approves or denies a pairing code the way a member's browser does: loads the hub's approval
// page (which signs the local member in with a cookie), then submits its form.
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
