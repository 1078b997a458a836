#include "ui/ProfileSelection.h"

#include <QObject>

namespace stepscope {

const ProfileRun* ProfileSelection::currentRun() const {
    if (run < 0 || run >= int(discovery.runs.size())) return nullptr;
    return &discovery.runs[size_t(run)];
}

std::vector<HostFile> ProfileSelection::hostFiles() const {
    const ProfileRun* r = currentRun();
    if (!r) return {};
    if (host == kAllHosts) return r->hosts;
    if (host < 0 || host >= int(r->hosts.size())) return {};
    return {r->hosts[size_t(host)]};
}

QString ProfileSelection::label() const {
    if (demo) return QObject::tr("Demo profile");
    const ProfileRun* r = currentRun();
    if (!r) return source;
    QString hostText;
    if (host == kAllHosts)
        hostText = r->hosts.size() == 1 ? QString::fromStdString(r->hosts.front().host)
                                        : QObject::tr("All hosts");
    else if (host >= 0 && host < int(r->hosts.size()))
        hostText = QString::fromStdString(r->hosts[size_t(host)].host);
    return QStringLiteral("%1 · %2").arg(QString::fromStdString(r->name), hostText);
}

int defaultHost(const ProfileRun& run) {
    return run.hosts.size() == 1 ? 0 : ProfileSelection::kAllHosts;
}

int hostNamed(const ProfileRun& run, const QString& hostName) {
    for (size_t i = 0; i < run.hosts.size(); ++i)
        if (QString::fromStdString(run.hosts[i].host) == hostName) return int(i);
    return defaultHost(run);
}

} // namespace stepscope
