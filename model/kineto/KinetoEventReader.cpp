#include "model/kineto/KinetoEventReader.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>

#include "model/kineto/JsonScan.h"

namespace stepscope::kineto {

namespace {

// Eight bytes at a time (SWAR): a mask with the high bit of each byte of `w` that equals the
// byte in `c8` (a byte repeated eight times). Exact for the lowest such byte; bytes above it may
// be marked falsely, so only the lowest mark is used.
static_assert(std::endian::native == std::endian::little, "bytesEqual() reads little-endian words");
constexpr uint64_t kOnes = 0x0101010101010101ull;
inline uint64_t bytesEqual(uint64_t w, uint64_t c8) {
    const uint64_t x = w ^ c8;
    return (x - kOnes) & ~x & (kOnes * 0x80);
}
inline uint64_t load8(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// An event field's name of at most 4 bytes as a number, to switch on: its bytes and its size.
constexpr uint64_t fieldCode(std::string_view k) {
    uint64_t code = k.size();
    for (size_t i = 0; i < k.size() && i < 4; ++i) code |= uint64_t(uint8_t(k[i])) << (8 * (i + 1));
    return code;
}

std::string_view trimToken(std::string_view t) {
    while (!t.empty() &&
           (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
        t.remove_suffix(1);
    return t;
}

// A string value (whose type was checked): a view of the JSON text where it has no escapes, as
// most do not, otherwise simdjson's unescaped copy. Both stay valid while the document is read.
std::string_view stringOf(od::value& v) {
    const std::string_view token = trimToken(v.raw_json_token());
    if (token.size() >= 2 && token.front() == '"' && token.back() == '"') {
        const std::string_view inner = token.substr(1, token.size() - 2);
        // Eight bytes at a time (a call to memchr costs more on these short texts).
        bool escaped = false;
        size_t i = 0;
        for (; i + 8 <= inner.size() && !escaped; i += 8)
            escaped = bytesEqual(load8(inner.data() + i), kOnes * '\\') != 0;
        for (; i < inner.size() && !escaped; ++i) escaped = inner[i] == '\\';
        if (!escaped) return inner;
    }
    return v.get_string();
}

} // namespace

KinetoEventReader::KinetoEventReader(ProfileBuilder& b, uint32_t host,
                                     const KinetoTokenizer& tokenizer, const Progress* progress)
    : b_(b)
    , tokenizer_(tokenizer)
    , progress_(progress)
    , catKey_(b.intern("category"))
    , strings_(b)
    , categories_(b)
    , hosts_(b, host, catKey_, categories_, join_, steps_)
    , devices_(b, host, catKey_) {}

// Room for what the text likely holds (Kineto writes 150 to 400 bytes per event, a kernel about
// 500; the stat lists came to 1/13 to 1/14 of the text in the traces measured): the columns then
// grow without copies into fresh memory, and room that is not used is never touched.
void KinetoEventReader::expectBytes(size_t bytes) {
    b_.reserveEvents(b_.eventCount() + bytes / 128);
    b_.reserveStatBytes(bytes / 8);
}

std::optional<SkippedEvent> KinetoEventReader::event(od::object obj, const char* at) {
    readEvent(obj, at);
    return std::exchange(skip_, std::nullopt);
}

// Reads one event into its tracker; false, with skip_ saying why, where it cannot be shown.
bool KinetoEventReader::readEvent(od::object obj, const char* at) {
    if (++sinceReport_ == 65536) {
        sinceReport_ = 0;
        if (!b_.error().empty()) fail(b_.error(), at);
        if (progress_) {
            if (progress_->cancelled()) fail("cancelled");
            progress_->report("Reading events", double(tokenizer_.offsetOf(at).value_or(0)) /
                                                    double(tokenizer_.size()));
        }
    }
    std::string_view ph, name, cat, tsText, durText;
    std::string_view flowId, bindPoint; // "id" (or "id2") and "bp" of a flow event
    bool localFlowId = false;           // an "id2" "local" id: scoped to its process
    bool hasTs = false, hasDur = false;
    Id pid, tid;
    args_.clear();
    for (auto&& result : obj) {
        // References, not copies: a copy of simdjson's iterator structs just written stalls
        // the load that reads it (store forwarding), which cost a third of the import's time.
        if (result.error()) throw simdjson::simdjson_error(result.error());
        od::field& f = result.value_unsafe();
        // As written: no field read here has escapes in its name, so one with escapes matches
        // none (and its value is skipped).
        const std::string_view k = rawKeyText(f);
        if (k.size() > 4) continue; // no field we read has a longer name
        od::value& v = f.value();
        switch (fieldCode(k)) {
        case fieldCode("ph"):
            if (v.type() != od::json_type::string) return skip("\"ph\" is not a string", at);
            ph = stringOf(v);
            break;
        case fieldCode("name"):
            if (v.type() != od::json_type::string) return skip("\"name\" is not a string", at);
            name = stringOf(v);
            break;
        case fieldCode("cat"):
            if (v.type() != od::json_type::string) return skip("\"cat\" is not a string", at);
            cat = stringOf(v);
            break;
        case fieldCode("ts"):
            if (v.type() != od::json_type::number) return skip("\"ts\" is not a number", at);
            tsText = trimToken(v.raw_json_token());
            hasTs = true;
            break;
        case fieldCode("dur"):
            if (v.type() != od::json_type::number) return skip("\"dur\" is not a number", at);
            durText = trimToken(v.raw_json_token());
            hasDur = true;
            break;
        case fieldCode("pid"):
            if (!readId(v, pid)) return false;
            break;
        case fieldCode("tid"):
            if (!readId(v, tid)) return false;
            break;
        case fieldCode("args"):
            if (v.type() == od::json_type::null) continue; // no args
            if (v.type() != od::json_type::object) return skip("\"args\" is not an object", at);
            readArgs(v.get_object(), args_);
            break;
        case fieldCode("id"):
        case fieldCode("id2"):
        case fieldCode("bp"):
            flowField(k, v, flowId, localFlowId, bindPoint);
            break;
        default:
            break;
        }
    }
    if (ph.empty()) return skip("the event has no \"ph\" (phase)", at);
    const char phase = ph.size() == 1 ? ph[0] : '?';
    switch (phase) {
    case 'M':
        hosts_.metadata(name, pid, tid, args_);
        return true;
    case 's':
    case 't':
    case 'f': {
        // Kineto's ac2g arrows repeat the correlation ids the events carry, from which the
        // model joins launches to kernels; other flows are bound to slices.
        if (cat == "ac2g") return true;
        if (flowId.empty()) {
            flows_.addWithoutId();
            return true;
        }
        int64_t ps;
        if (!hasTs) return skip("the event has no \"ts\"", at);
        if (!time(tsText, at, "ts", ps)) return false;
        flows_.add(phase, flowId, localFlowId, bindPoint, cat, name, pid.value, tid.value, ps);
        return true;
    }
    case 'X':
    case 'B':
    case 'E':
    case 'i':
    case 'I':
        break;
    default:
        ++skippedPhases_[std::string(ph)];
        return true;
    }
    if (!hasTs) return skip("the event has no \"ts\"", at);
    int64_t start;
    if (!time(tsText, at, "ts", start)) return false;
    int64_t duration = 0;
    if (phase == 'X') {
        if (!hasDur) return skip("the complete (\"X\") event has no \"dur\"", at);
        if (!jsonscan::parseMicros(durText, 0, duration) || duration < 0)
            return skip("\"dur\" is negative or not a duration in µs", at);
    }
    lastPs_ = std::max(lastPs_, start + duration);
    const StringId nameId = strings_.intern(name);
    const StringId catId = strings_.intern(cat);
    const Kind kind = categories_.of(catId).kind;
    if (kind != Kind::Host && phase == 'X') {
        devices_.add(start, duration, nameId, catId, kind, pid, tid, args_);
        return true;
    }
    const uint32_t thread = hosts_.thread(pid, tid);
    if (phase == 'B')
        hosts_.begin(thread, start, nameId, catId, args_);
    else if (phase == 'E')
        hosts_.end(thread, start, args_);
    else if (phase != 'X' && name == "[memory]")
        memoryEvent(thread, start);
    else
        hosts_.slice(thread, start, duration, nameId, catId, args_);
    return true;
}

// A [memory] instant, whose op the launch-to-op join finds as a launch's.
void KinetoEventReader::memoryEvent(uint32_t thread, int64_t start) {
    MemoryTracker::Record m;
    m.thread = thread;
    m.start = start;
    for (const Arg& a : args_) {
        const bool number = a.type == StatType::Int64 || a.type == StatType::Uint64;
        if (!number) continue;
        const int64_t v = int64_t(a.raw);
        switch (a.role) {
        case Role::MemDeviceType:
            m.deviceType = v;
            break;
        case Role::MemDeviceId:
            m.deviceId = v;
            break;
        case Role::MemAddr:
            m.addr = a.raw;
            m.hasAddr = true;
            break;
        case Role::MemBytes:
            m.bytes = v;
            break;
        case Role::MemTotalAllocated:
            m.totalAllocated = v;
            m.hasTotalAllocated = true;
            break;
        case Role::MemTotalReserved:
            m.totalReserved = v;
            m.hasTotalReserved = true;
            break;
        default:
            break;
        }
    }
    join_.addLaunch(thread, {start, memory_.size(), true});
    memory_.add(m);
}

// "id", "id2" ({"local": id} or {"global": id}) and "bp" of a flow event.
void KinetoEventReader::flowField(std::string_view key, od::value& v, std::string_view& id,
                                  bool& local, std::string_view& bindPoint) {
    const od::json_type t = v.type();
    if (key == "bp") {
        if (t == od::json_type::string) bindPoint = stringOf(v);
        return;
    }
    if (key == "id") {
        if (t == od::json_type::string)
            id = stringOf(v);
        else if (t == od::json_type::number)
            id = trimToken(v.raw_json_token());
        return;
    }
    if (t != od::json_type::object) return;
    for (od::field g : v.get_object()) {
        bool escaped;
        const std::string_view scope = rawKey(g, escaped);
        od::value gv = g.value();
        const od::json_type gt = gv.type();
        if (escaped || (scope != "local" && scope != "global")) continue;
        if (gt == od::json_type::string)
            id = stringOf(gv);
        else if (gt == od::json_type::number)
            id = trimToken(gv.raw_json_token());
        local = scope == "local";
    }
}

bool KinetoEventReader::time(std::string_view text, const char* at, const char* field,
                             int64_t& ps) {
    const int64_t origin = haveOrigin_ ? originUs_ : jsonscan::wholeMicros(text);
    if (!jsonscan::parseMicros(text, origin, ps))
        return skip(std::string("\"") + field + "\" is not a time in µs this importer can hold",
                    at);
    originUs_ = origin; // the first readable time is the origin
    haveOrigin_ = true;
    return true;
}

bool KinetoEventReader::readId(od::value& v, Id& id) {
    id = Id{};
    const od::json_type t = v.type();
    if (t == od::json_type::number) {
        const std::string_view tok = trimToken(v.raw_json_token());
        int64_t x = 0;
        bool ok = !tok.empty();
        size_t i = tok.starts_with('-') ? 1 : 0;
        if (i == tok.size()) ok = false;
        for (; ok && i < tok.size(); ++i) {
            if (tok[i] < '0' || tok[i] > '9' || __builtin_mul_overflow(x, 10, &x) ||
                __builtin_add_overflow(x, tok[i] - '0', &x))
                ok = false;
        }
        if (!ok) {
            // A fractional or huge id: keep it distinct by its text.
            id.isText = true;
            id.text = strings_.intern(tok);
        } else {
            id.value = tok.starts_with('-') ? -x : x;
        }
    } else if (t == od::json_type::string) {
        const std::string_view s = stringOf(v);
        // "25738" and 25738 name the same thread (the 2021 schema writes both).
        int64_t x = 0;
        bool ok = !s.empty() && s.size() < 19;
        for (size_t i = 0; ok && i < s.size(); ++i)
            ok = s[i] >= '0' && s[i] <= '9', x = x * 10 + (s[i] - '0');
        if (ok) {
            id.value = x;
        } else {
            id.isText = true;
            id.text = strings_.intern(s);
        }
    } else {
        return skip("a pid or tid is neither a number nor a string",
                    v.current_location().value_unsafe());
    }
    if (id.isText) {
        // Text ids get negative numbers of their own, so they never meet numeric ids.
        const std::string_view s = b_.strings().get(id.text);
        auto it = textIds_.find(s);
        if (it == textIds_.end())
            it = textIds_.emplace(std::string(s), -int64_t(textIds_.size()) - 1000000).first;
        id.value = it->second;
    }
    return true;
}

// Into `a`, not returned: a returned Arg copied into a vector stalls on store forwarding.
void KinetoEventReader::readValue(od::value& v, uint32_t keyIndex, Role role, Arg& a) {
    a = Arg{};
    a.key = keyIndex;
    a.role = role;
    switch (v.type()) {
    case od::json_type::number: {
        // Read from the token's text: integers stay exact at any size up to 2^64.
        const std::string_view tok = trimToken(v.raw_json_token());
        const char* first = tok.data();
        const char* last = tok.data() + tok.size();
        int64_t i;
        uint64_t u;
        double d;
        if (jsonscan::smallInteger(tok, i)) {
            a.type = StatType::Int64;
            a.raw = uint64_t(i);
        } else if (auto r = std::from_chars(first, last, i); r.ec == std::errc() && r.ptr == last) {
            a.type = StatType::Int64;
            a.raw = uint64_t(i);
        } else if (auto r2 = std::from_chars(first, last, u);
                   r2.ec == std::errc() && r2.ptr == last) {
            a.type = StatType::Uint64;
            a.raw = u;
        } else if (auto r3 = std::from_chars(first, last, d); r3.ec == std::errc()) {
            a.type = StatType::Double;
            a.raw = std::bit_cast<uint64_t>(d);
        } else {
            // Out of double's range (1e400) or otherwise unreadable: kept as its text.
            a.type = StatType::Str;
            a.raw = strings_.intern(tok);
        }
        break;
    }
    case od::json_type::string:
        a.type = StatType::Str;
        a.raw = strings_.intern(stringOf(v));
        break;
    case od::json_type::boolean:
        a.type = StatType::Int64;
        a.raw = v.get_bool() ? 1 : 0;
        break;
    case od::json_type::null:
        a.key = 0; // dropped
        break;
    case od::json_type::array: {
        od::array arr = v.get_array();
        const std::string_view raw = tokenizer_.whole(arr.raw_json());
        a.type = StatType::Str;
        a.raw = strings_.intern(trimToken(raw));
        if (role == Role::Grid || role == Role::Block) {
            // [x, y, z]: read back from the text (the array is consumed).
            size_t d = 0;
            uint64_t x = 0;
            bool inNumber = false;
            bool ok = true;
            for (char c : raw) {
                if (c >= '0' && c <= '9') {
                    x = x * 10 + uint64_t(c - '0');
                    inNumber = true;
                    if (x > 0xFFFFFFFFu) ok = false;
                } else if (inNumber) {
                    if (d < 3) a.dims[d] = uint32_t(x);
                    ++d;
                    x = 0;
                    inNumber = false;
                } else if (c == '-' || c == '.') {
                    ok = false;
                }
            }
            a.hasDims = ok && d == 3;
        }
        break;
    }
    case od::json_type::object: {
        od::object obj = v.get_object();
        a.type = StatType::Str;
        a.raw = strings_.intern(trimToken(tokenizer_.whole(obj.raw_json())));
        break;
    }
    }
}

void KinetoEventReader::readArgs(od::object args, std::vector<Arg>& out) {
    for (auto&& result : args) {
        if (result.error()) throw simdjson::simdjson_error(result.error());
        od::field& f = result.value_unsafe(); // a reference: see readEvent()
        Role role;
        const uint32_t keyIndex = strings_.key(
            rawKeyText(f), &role, [&] { return std::string(std::string_view(f.unescaped_key())); });
        Arg& a = out.emplace_back();
        readValue(f.value(), keyIndex, role, a);
        if (a.key == 0) out.pop_back();
    }
}

void KinetoEventReader::rootField(std::string_view k, od::value& v, const char* at) {
    if (k == "deviceProperties") {
        if (v.type() == od::json_type::array) deviceProperties(v.get_array());
    } else if (k == "distributedInfo") {
        if (v.type() == od::json_type::object) distributedInfo(v.get_object());
    } else if (k == "baseTimeNanoseconds") {
        int64_t base;
        if (v.type() != od::json_type::number || v.get_int64().get(base) != simdjson::SUCCESS)
            fail("\"baseTimeNanoseconds\" is not an integer", at);
        baseTimeNs_ = base;
    } else {
        const od::json_type vt = v.type();
        if (vt == od::json_type::string || vt == od::json_type::number ||
            vt == od::json_type::boolean) {
            Role role;
            const uint32_t keyIndex = strings_.key(k, &role);
            Arg a;
            readValue(v, keyIndex, Role::Plain, a);
            hosts_.addHostStat(StatValue{b_.statKeyName(keyIndex), a.type, a.raw});
        }
    }
}

void KinetoEventReader::deviceProperties(od::array devices) {
    for (auto element : devices) {
        od::value v = element.value();
        if (v.type() != od::json_type::object) continue;
        std::vector<Arg> props;
        readArgs(v.get_object(), props);
        int64_t id = -1;
        std::vector<StatValue> stats;
        auto add = [&](std::string_view k, StatType t, uint64_t raw) {
            stats.push_back(StatValue{b_.intern(k), t, raw});
        };
        // A copy: add() interns, which may move the pool's bytes under a view.
        std::string deviceName;
        for (const Arg& a : props) {
            const std::string k(b_.strings().get(b_.statKeyName(a.key)));
            if (k == "id" && a.type == StatType::Int64) id = int64_t(a.raw);
            if (a.type == StatType::Str && k == "name")
                deviceName = std::string(b_.strings().get(a.raw));
            stats.push_back(StatValue{b_.statKeyName(a.key), a.type, a.raw});
            if (a.type != StatType::Int64) continue;
            if (k == "computeMajor") add("compute_cap_major", StatType::Int64, a.raw);
            if (k == "computeMinor") add("compute_cap_minor", StatType::Int64, a.raw);
            if (k == "numSms") add("core_count", StatType::Int64, a.raw);
            if (k == "totalGlobalMem") add("memory_size", StatType::Int64, a.raw);
        }
        if (!deviceName.empty()) {
            const bool amd = deviceName.find("AMD") != std::string_view::npos ||
                             deviceName.find("Instinct") != std::string_view::npos ||
                             deviceName.find("Radeon") != std::string_view::npos;
            add("device_vendor", StatType::Str, b_.intern(amd ? "AMD" : "NVIDIA"));
        }
        if (id >= 0) devices_.setProperties(id, std::move(stats));
    }
}

void KinetoEventReader::distributedInfo(od::object info) {
    std::vector<Arg> args;
    readArgs(info, args);
    for (const Arg& a : args) {
        const std::string name =
            "distributed " + std::string(b_.strings().get(b_.statKeyName(a.key)));
        hosts_.addHostStat(StatValue{b_.intern(name), a.type, a.raw});
    }
}

std::string KinetoEventReader::finish() {
    hosts_.closeOpen(lastPs_);
    join_.join(steps_, memory_);
    hosts_.finishNames(textIds_);
    devices_.finish(strings_, join_, steps_, hosts_);
    join_.clear();
    if (memory_.size()) {
        Role role;
        memory_.finish(b_, hosts_, strings_.key("tf_op", &role));
    }
    return b_.error();
}

std::string KinetoEventReader::timeBase(int64_t& originNs) const {
    // Time base: the origin as an absolute time. Kineto since 2022 writes ts relative to
    // baseTimeNanoseconds; older traces (and most Chrome JSON) write ts in µs since the epoch.
    if (__builtin_mul_overflow(originUs_, int64_t(1000), &originNs) ||
        __builtin_add_overflow(originNs, baseTimeNs_.value_or(0), &originNs))
        return "the trace's time base is out of range";
    return {};
}

std::vector<std::string> KinetoEventReader::warnings() const {
    std::vector<std::string> out;
    if (hosts_.unmatchedEnds())
        out.push_back(std::to_string(hosts_.unmatchedEnds()) +
                      " \"E\" events have no matching \"B\" and are ignored");
    if (flows_.withoutId())
        out.push_back(std::to_string(flows_.withoutId()) +
                      " flow events have no \"id\" or \"id2\" and are ignored");
    for (const auto& [ph, n] : skippedPhases_)
        out.push_back(std::to_string(n) + " events of phase \"" + ph +
                      "\" are not shown (not supported)");
    return out;
}

} // namespace stepscope::kineto
