#include "model/ProfileLoader.h"

#include <algorithm>

#include "model/HeapArena.h"
#include "model/MappedFile.h"
#include "model/ProfileBuilder.h"
#include "model/kineto/KinetoImporter.h"
#include "model/xspace/XSpaceImporter.h"

namespace stepscope {

namespace {

// Chrome trace JSON (PyTorch/Kineto) or XSpace. A gzip stream cannot be an XSpace (0x1f is no
// valid protobuf tag), nor can a file that starts with `{` or `[` (an XSpace starts with the tag
// 0x0A). A file that starts with blanks and then `{` or `[` could be an XSpace whose first plane
// is 91 or 123 bytes long, so there the name decides: `.pb` is an XSpace.
bool isChromeTrace(const std::string& path, std::span<const uint8_t> b) {
    if (!looksLikeChromeTrace(b)) return false;
    if (b[0] == 0x1f || b[0] == '{' || b[0] == '[') return true;
    return !path.ends_with(".pb");
}

LoadResult finishLoad(ProfileBuilder& builder, const Progress* progress, unsigned threads) {
    LoadResult result;
    std::unique_ptr<Profile> profile = builder.finish(progress, threads);
    // Loading frees as much as the profile keeps (staging columns, per-chunk buffers of every
    // thread); glibc keeps freed heap memory for reuse, so without this the process would stay
    // about 25% larger than its profile.
    returnFreedHeap();
    if (!profile) {
        result.cancelled = builder.error().empty();
        result.error = result.cancelled ? "loading was cancelled" : builder.error();
        return result;
    }
    result.profile = std::move(profile);
    return result;
}

// How loadHosts() marks a host it could not read, in Host::errors.
constexpr std::string_view kUnreadableHost = "cannot be loaded: ";

} // namespace

namespace {

// One attempt: hosts marked in `unreadable` (with their problem) are added without reading them;
// the first other host that cannot be read ends the attempt with `failed` set to its index.
LoadResult loadHostsSkipping(const std::vector<HostFile>& hosts,
                             const std::vector<std::string>& unreadable, const Progress* progress,
                             unsigned threads, size_t& failed) {
    LoadResult result;
    ProfileBuilder builder;
    for (size_t i = 0; i < hosts.size(); ++i) {
        const HostFile& h = hosts[i];
        if (!unreadable[i].empty()) {
            builder.host(builder.addHost(h.host, h.path)).errors.push_back(unreadable[i]);
            continue;
        }
        if (progress) {
            if (progress->cancelled()) {
                result.cancelled = true;
                result.error = "loading was cancelled";
                return result;
            }
            progress->report("Opening " + h.host, double(i) / double(hosts.size()));
        }
        MappedFile file(h.path);
        if (!file.error().empty()) {
            result.error = "cannot read " + h.path + ": " + file.error();
            failed = i;
            return result;
        }
        const auto bytes = file.bytes();
        const uint32_t host = builder.addHost(h.host, h.path);
        const bool json = isChromeTrace(h.path, bytes);
        std::string error = json ? importChromeTrace(bytes, builder, host, progress,
                                                     MappedFile::readableAfterEnd(bytes.size()))
                                 : importXSpace(bytes, builder, host, progress, threads);
        if (file.shrunk())
            error = "the file changed while it was being read: it is shorter than the " +
                    std::to_string(bytes.size()) +
                    " bytes it had when opened (is a profiler still writing it? open it again "
                    "once it is complete)";
        if (!error.empty()) {
            if (progress && progress->cancelled()) {
                result.cancelled = true;
                result.error = "loading was cancelled";
            } else {
                result.error =
                    h.path + (json ? ": not a readable Chrome trace JSON: " : ": ") + error;
                failed = i;
            }
            return result;
        }
    }
    return finishLoad(builder, progress, threads);
}

} // namespace

LoadResult loadHosts(const std::vector<HostFile>& hosts, const Progress* progress,
                     unsigned threads) {
    if (hosts.empty()) {
        LoadResult result;
        result.error = "no host files to load";
        return result;
    }
    // A host that cannot be read is kept, without planes, with its problem in Host::errors, and
    // the others are read again without it (only this case costs a second read).
    std::vector<std::string> unreadable(hosts.size());
    for (;;) {
        size_t failed = hosts.size();
        LoadResult result = loadHostsSkipping(hosts, unreadable, progress, threads, failed);
        if (failed == hosts.size() || hosts.size() == 1) return result;
        unreadable[failed] = std::string(kUnreadableHost) + result.error;
        if (std::none_of(unreadable.begin(), unreadable.end(),
                         [](const std::string& e) { return e.empty(); })) {
            result.error = "no host of the run can be read; the last: " + result.error;
            return result;
        }
    }
}

std::vector<std::pair<uint32_t, std::string>> unreadableHosts(const Profile& profile) {
    std::vector<std::pair<uint32_t, std::string>> hosts;
    for (uint32_t i = 0; i < profile.hosts().size(); ++i)
        for (const std::string& e : profile.hosts()[i].errors)
            if (e.starts_with(kUnreadableHost))
                hosts.emplace_back(i, e.substr(kUnreadableHost.size()));
    return hosts;
}

LoadResult loadXSpaceBytes(std::span<const uint8_t> bytes, const std::string& hostName,
                           const Progress* progress, unsigned threads) {
    ProfileBuilder builder;
    const uint32_t host = builder.addHost(hostName, {});
    const std::string error = importXSpace(bytes, builder, host, progress, threads);
    if (!error.empty()) {
        LoadResult result;
        result.cancelled = progress && progress->cancelled();
        result.error = result.cancelled ? "loading was cancelled" : hostName + ": " + error;
        return result;
    }
    return finishLoad(builder, progress, threads);
}

LoadResult loadPath(const std::string& path, const Progress* progress, unsigned threads) {
    const Discovery d = discoverProfiles(path);
    if (!d.ok()) {
        LoadResult result;
        result.error = d.error;
        return result;
    }
    return loadHosts(d.runs.front().hosts, progress, threads);
}

} // namespace stepscope
