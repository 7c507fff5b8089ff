#include "bundleheader.h"

#include "gitsupport.h"

#include <QIODevice>
#include <QSet>

namespace isolation {

namespace {

bool isObjectId(QByteArrayView text)
{
    if (text.size() != 40)
        return false;
    for (const char c : text) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

bool isRefName(const QByteArray &name)
{
    if (name == "HEAD")
        return true;
    if (!name.startsWith("refs/"))
        return false;
    int valid = 0;
    return git_reference_name_is_valid(&valid, name.constData()) == 0 && valid;
}

// One line without its line feed; Corrupt when it is too long or the input ends first.
Result<QByteArray, WorkspaceError> readLine(QIODevice &in, int lineNumber)
{
    QByteArray line;
    while (!line.endsWith('\n')) {
        const qsizetype room = BundleHeader::kMaxLine - line.size();
        if (room <= 0)
            return WorkspaceError::corrupt(QStringLiteral("bundle header line %1 is too long").arg(lineNumber));
        const QByteArray more = in.readLine(room + 1);
        if (more.isEmpty()) {
            if (in.waitForReadyRead(BundleHeader::kReadTimeoutMs))
                continue;
            return WorkspaceError::corrupt(QStringLiteral("bundle header ends early (line %1)").arg(lineNumber));
        }
        line += more;
    }
    line.chop(1);
    return line;
}

} // namespace

QByteArray BundleHeader::serialize() const
{
    QByteArray out = "# v2 git bundle\n";
    for (const BundlePrerequisite &p : prerequisites) {
        out += '-' + p.id;
        if (!p.comment.isEmpty())
            out += ' ' + p.comment;
        out += '\n';
    }
    for (const BundleRef &r : refs)
        out += r.id + ' ' + r.name + '\n';
    out += '\n';
    return out;
}

Result<BundleHeader, WorkspaceError> BundleHeader::read(QIODevice &in)
{
    git::ensureLibrary(); // for ref name validation
    BundleHeader header;
    int lineNumber = 1;
    auto first = readLine(in, lineNumber);
    if (!first)
        return WorkspaceError::corrupt(QStringLiteral("not a git bundle: %1").arg(first.error().message));
    if (first.value() == "# v2 git bundle")
        header.version = 2;
    else if (first.value() == "# v3 git bundle")
        header.version = 3;
    else
        return WorkspaceError::corrupt(QStringLiteral("not a git bundle (no v2 or v3 signature)"));

    QSet<QByteArray> names;
    bool inCapabilities = header.version == 3;
    while (true) {
        ++lineNumber;
        auto read = readLine(in, lineNumber);
        if (!read)
            return read.error();
        const QByteArray &line = read.value();
        const auto bad = [lineNumber](const QString &why) {
            return WorkspaceError::corrupt(QStringLiteral("bundle header line %1: %2").arg(lineNumber).arg(why));
        };
        if (line.isEmpty())
            break;
        if (header.prerequisites.size() + header.refs.size() >= kMaxEntries)
            return bad(QStringLiteral("more than %1 entries").arg(kMaxEntries));
        if (line.startsWith('@')) {
            if (!inCapabilities)
                return bad(QStringLiteral("capability outside a v3 header's capability block"));
            if (line != "@object-format=sha1")
                return bad(QStringLiteral("unsupported capability '%1'").arg(QString::fromUtf8(line.left(80))));
            continue;
        }
        inCapabilities = false;
        if (line.startsWith('-')) {
            if (!header.refs.isEmpty())
                return bad(QStringLiteral("prerequisite after a ref"));
            const QByteArray id = line.mid(1, 40);
            if (!isObjectId(id) || (line.size() > 41 && line.at(41) != ' '))
                return bad(QStringLiteral("malformed prerequisite"));
            header.prerequisites.append({id, line.mid(42)});
            continue;
        }
        const QByteArrayView id = QByteArrayView(line).first(std::min<qsizetype>(40, line.size()));
        if (!isObjectId(id) || line.size() < 42 || line.at(40) != ' ')
            return bad(QStringLiteral("malformed ref line"));
        const QByteArray name = line.mid(41);
        if (!isRefName(name))
            return bad(QStringLiteral("invalid ref name"));
        if (names.contains(name))
            return bad(QStringLiteral("ref %1 listed twice").arg(QString::fromUtf8(name)));
        names.insert(name);
        header.refs.append({id.toByteArray(), name});
    }
    if (header.refs.isEmpty())
        return WorkspaceError::corrupt(QStringLiteral("bundle lists no refs"));
    return header;
}

QList<BundleRef> bundleRefs(const QMap<QString, QString> &refs)
{
    QList<BundleRef> list;
    list.reserve(refs.size());
    for (auto it = refs.cbegin(); it != refs.cend(); ++it)
        list.append({it.value().toLatin1(), it.key().toUtf8()});
    return list;
}

} // namespace isolation
