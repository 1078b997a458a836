#include "model/analysis/ProfileSummary.h"

#include "model/TimeFormat.h"

#include <cstdio>
#include <sstream>

namespace stepscope {

namespace {

std::string computeCapability(const DeviceInfo& d) {
    if (d.computeCapMajor == 0 && d.computeCapMinor == 0) return {};
    return std::to_string(d.computeCapMajor) + "." + std::to_string(d.computeCapMinor);
}

double psToMs(int64_t ps) {
    return double(ps) / 1e9;
}

std::string jsonEscape(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    for (unsigned char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += char(c);
            }
        }
    }
    return out;
}

// A table as a JSON array of objects keyed by column name; numbers stay numbers.
void tableToJson(std::ostringstream& out, const Table& t) {
    out << '[';
    for (size_t r = 0; r < t.rowCount(); ++r) {
        out << (r ? ",{" : "{");
        for (size_t c = 0; c < t.columnCount(); ++c) {
            if (c) out << ',';
            out << '"' << jsonEscape(t.column(c).name) << "\":";
            if (t.column(c).type == Table::Type::Text)
                out << '"' << jsonEscape(t.text(r, c)) << '"';
            else if (t.isMissing(r, c))
                out << "null";
            else
                out << t.exactText(r, c);
        }
        out << '}';
    }
    out << ']';
}

// A table as aligned plain-text columns, as the screen shows the values.
void tableToText(std::ostringstream& out, const Table& t) {
    std::vector<size_t> width(t.columnCount());
    for (size_t c = 0; c < t.columnCount(); ++c) {
        width[c] = t.column(c).name.size();
        for (size_t r = 0; r < t.rowCount(); ++r)
            width[c] = std::max(width[c], t.displayText(r, c).size());
    }
    auto cell = [&](const std::string& s, size_t c, bool right) {
        const std::string pad(width[c] - std::min(width[c], s.size()), ' ');
        out << (right ? pad + s : s + pad) << (c + 1 < t.columnCount() ? "  " : "");
    };
    for (size_t c = 0; c < t.columnCount(); ++c) cell(t.column(c).name, c, false);
    out << '\n';
    for (size_t r = 0; r < t.rowCount(); ++r) {
        for (size_t c = 0; c < t.columnCount(); ++c)
            cell(t.displayText(r, c), c, t.column(c).type != Table::Type::Text);
        out << '\n';
    }
}

} // namespace

ProfileSummary summarizeProfile(const Profile& p) {
    using T = Table::Type;
    ProfileSummary s;
    s.events = p.eventCount();
    s.durationPs = p.durationPs();

    std::vector<uint64_t> hostEvents(p.hosts().size(), 0), hostPlanes(p.hosts().size(), 0);
    std::vector<uint64_t> planeEvents(p.planes().size(), 0);
    for (size_t i = 0; i < p.planes().size(); ++i) {
        const Plane& pl = p.planes()[i];
        for (const Track& t : p.tracksOf(pl)) planeEvents[i] += t.eventCount;
        hostEvents[pl.host] += planeEvents[i];
        ++hostPlanes[pl.host];
    }

    Table& h = s.hosts;
    h.addColumn("Host", T::Text);
    h.addColumn("Hostname in file", T::Text, ColumnFormat::Plain,
                "XSpace.hostnames: the host as the tracer named it");
    h.addColumn("File", T::Text);
    h.addColumn("Planes", T::Int);
    h.addColumn("Events", T::Int);
    h.addColumn("Errors", T::Int);
    h.addColumn("Warnings", T::Int);
    for (size_t i = 0; i < p.hosts().size(); ++i) {
        const Host& host = p.hosts()[i];
        std::string hostnames;
        for (const std::string& n : host.hostnames)
            hostnames += (hostnames.empty() ? "" : ", ") + n;
        h.addRow({host.name, hostnames, host.sourcePath, int64_t(hostPlanes[i]),
                  int64_t(hostEvents[i]), int64_t(host.errors.size()),
                  int64_t(host.warnings.size())});
        for (const std::string& e : host.errors) s.messages.push_back(host.name + ": error: " + e);
        for (const std::string& w : host.warnings)
            s.messages.push_back(host.name + ": warning: " + w);
    }

    Table& pt = s.planes;
    pt.addColumn("Host", T::Text);
    pt.addColumn("Plane", T::Text);
    pt.addColumn("Kind", T::Text);
    pt.addColumn("Vendor", T::Text);
    pt.addColumn("Compute capability", T::Text);
    pt.addColumn("SMs / CUs", T::Int, ColumnFormat::Plain,
                 "core_count: streaming multiprocessors (NVIDIA) or compute units (AMD)");
    pt.addColumn("Clock (MHz)", T::Double, ColumnFormat::Plain);
    pt.addColumn("Memory", T::Int, ColumnFormat::Bytes);
    pt.addColumn("Bandwidth (GB/s)", T::Double, ColumnFormat::Plain);
    pt.addColumn("Tracks", T::Int);
    pt.addColumn("Events", T::Int);
    for (size_t i = 0; i < p.planes().size(); ++i) {
        const Plane& pl = p.planes()[i];
        const DeviceInfo& d = pl.device;
        // Properties the plane does not record (every host plane) are "no value", not 0.
        auto count = [](int64_t v) -> Table::Cell {
            if (v > 0) return v;
            return Table::missing();
        };
        auto scaled = [](double v, double unit) -> Table::Cell {
            if (v > 0) return v / unit;
            return Table::missing();
        };
        pt.addRow({p.hosts()[pl.host].name, std::string(p.str(pl.name)),
                   std::string(planeKindName(pl.kind)), d.vendor, computeCapability(d),
                   count(d.coreCount), scaled(double(d.clockRateKHz), 1e3),
                   count(int64_t(d.memoryBytes)), scaled(double(d.bandwidthBps), 1e9),
                   int64_t(pl.trackCount), int64_t(planeEvents[i])});
    }

    Table& tt = s.tracks;
    tt.addColumn("Host", T::Text);
    tt.addColumn("Plane", T::Text);
    tt.addColumn("Track", T::Text);
    tt.addColumn("Kind", T::Text);
    tt.addColumn("Stream kind", T::Text);
    tt.addColumn("Events", T::Int);
    tt.addColumn("Depth", T::Int, ColumnFormat::Plain, "Nesting levels: events stack this deep");
    tt.addColumn("First event (ms)", T::Double, ColumnFormat::Plain, "From the profile start");
    tt.addColumn("Last end (ms)", T::Double, ColumnFormat::Plain, "From the profile start");
    for (const Track& t : p.tracks()) {
        const Plane& pl = p.planes()[t.plane];
        const std::string_view name =
            p.str(t.displayName).empty() ? p.str(t.name) : p.str(t.displayName);
        tt.addRow({p.hosts()[pl.host].name, std::string(p.str(pl.name)), std::string(name),
                   std::string(trackKindName(t.kind)), streamFlagsName(t.streamFlags),
                   int64_t(t.eventCount), int64_t(t.depthCount), psToMs(t.minStartPs),
                   psToMs(t.maxEndPs)});
    }
    return s;
}

std::string summaryToText(const ProfileSummary& s) {
    std::ostringstream out;
    out << "Events: " << s.events << "   Time span: " << formatDuration(s.durationPs) << "\n\n";
    out << "Hosts\n";
    tableToText(out, s.hosts);
    out << "\nPlanes\n";
    tableToText(out, s.planes);
    out << "\nTracks\n";
    tableToText(out, s.tracks);
    if (!s.messages.empty()) {
        out << "\nMessages\n";
        for (const std::string& m : s.messages) out << m << '\n';
    }
    return out.str();
}

std::string summaryToJson(const ProfileSummary& s) {
    std::ostringstream out;
    out << "{\"events\":" << s.events << ",\"duration_ps\":" << s.durationPs << ",\"hosts\":";
    tableToJson(out, s.hosts);
    out << ",\"planes\":";
    tableToJson(out, s.planes);
    out << ",\"tracks\":";
    tableToJson(out, s.tracks);
    out << ",\"messages\":[";
    for (size_t i = 0; i < s.messages.size(); ++i)
        out << (i ? "," : "") << '"' << jsonEscape(s.messages[i]) << '"';
    out << "]}";
    return out.str();
}

} // namespace stepscope
