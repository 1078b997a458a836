#include "model/kineto/KinetoImporter.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <simdjson.h>

#include "model/analysis/TorchTrace.h"
#include "model/kineto/Gunzip.h"

namespace stepscope {

namespace {

namespace od = simdjson::ondemand;

// XProf's first reserved (derived) line id, kThreadIdDerivedMin = 0xdeadbeef, which is also its
// "Steps" line (kThreadIdStepInfo) (xla/tsl/profiler/utils/xplane_schema.h). Lines under these
// ids are skipped by every analysis that counts device work.
constexpr int64_t kStepsLineId = 0xdeadbeef;
constexpr int64_t kGpuAnnotationLineBase = 0xdeadbeef + 100; // + stream, modulo 80
constexpr int64_t kSyncLineBase = 0xdeadbeef + 180;          // + stream, modulo 80

struct ImportError {
    std::string message;
    const char* at = nullptr; // where in the JSON, when known
};

[[noreturn]] void fail(std::string message, const char* at = nullptr) {
    throw ImportError{std::move(message), at};
}

// One event that cannot be shown (a negative "dur", a "ts" out of range, a field of the wrong
// type): it is left out and counted, and the rest of the trace loads.
struct SkippedEvent {
    std::string reason;
    const char* at = nullptr;
};

[[noreturn]] void skipEvent(std::string reason, const char* at) {
    throw SkippedEvent{std::move(reason), at};
}

// simdjson's error, where in the file it happened when known.
struct ParseFailure {
    simdjson::error_code code;
    std::optional<size_t> offset;
};

bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Calls visit(i, c) for each character of `text` outside strings, the quotes that open and
// close a string included; visit returns false to stop. Returns whether the text ended inside a
// string (false where visit stopped).
template <class Visit> bool scanOutsideStrings(std::string_view text, Visit&& visit) {
    for (size_t i = 0; i < text.size(); ++i) {
        if (!visit(i, text[i])) return false;
        if (text[i] != '"') continue;
        // The string, to its closing quote, past escaped characters.
        for (++i; i < text.size() && text[i] != '"'; ++i)
            if (text[i] == '\\') ++i;
        if (i >= text.size()) return true;
        if (!visit(i, '"')) return false;
    }
    return false;
}

// Where a JSON text ends structurally, found by a scan of its brackets and strings: used only
// when the text does not end as its first byte says it should, to say where and why.
struct JsonShape {
    size_t rootEnd = std::string_view::npos; // just past the root value's closing bracket
    size_t lastElementEnd = 0; // just past the last whole element of a root array (0: none)
    bool inString = false;
};

JsonShape jsonShape(std::string_view text) {
    JsonShape shape;
    int64_t depth = 0;
    shape.inString = scanOutsideStrings(text, [&](size_t i, char c) {
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) {
                shape.rootEnd = i + 1;
                return false;
            }
            if (depth == 1) shape.lastElementEnd = i + 1;
        }
        return true;
    });
    return shape;
}

std::string_view trimmed(std::string_view text) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// A time in picoseconds read from a JSON number in µs, exactly: "1669783687464181",
// "68.0", "12.345678", "-3.5". `originUs` is subtracted from the integer part before scaling, so
// absolute epoch times (1.7e15 µs = 1.7e21 ps) fit. Digits past the sixth decimal (below 1 ps)
// are dropped. Exponent forms ("1.5e3") go through a double, which is exact for them in practice.
bool parseMicros(std::string_view text, int64_t originUs, int64_t& ps) {
    size_t i = 0;
    const size_t n = text.size();
    bool negative = false;
    if (i < n && text[i] == '-') {
        negative = true;
        ++i;
    }
    uint64_t whole = 0;
    size_t digits = 0;
    for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
        if (digits >= 18) return false;
        whole = whole * 10 + uint64_t(text[i] - '0');
    }
    if (digits == 0) return false;
    int64_t frac = 0;
    if (i < n && text[i] == '.') {
        ++i;
        int64_t scale = 100000;
        size_t fracDigits = 0;
        for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i, ++fracDigits) {
            if (scale > 0) {
                frac += int64_t(text[i] - '0') * scale;
                scale /= 10;
            }
        }
        if (fracDigits == 0) return false;
    }
    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
        const double v = std::strtod(std::string(text).c_str(), nullptr);
        const double rel = (v - double(originUs)) * 1e6;
        if (!(rel > -9.2e18 && rel < 9.2e18)) return false;
        ps = int64_t(rel);
        return true;
    }
    const int64_t signedWhole = negative ? -int64_t(whole) : int64_t(whole);
    int64_t us, scaled;
    if (__builtin_sub_overflow(signedWhole, originUs, &us) ||
        __builtin_mul_overflow(us, int64_t(1000000), &scaled) ||
        __builtin_add_overflow(scaled, negative ? -frac : frac, &ps))
        return false;
    return true;
}

// The whole-µs part of a number's text (for the origin), 0 if it has none.
int64_t wholeMicros(std::string_view text) {
    int64_t v = 0;
    size_t i = text.starts_with('-') ? 1 : 0;
    size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 18; ++i, ++digits)
        v = v * 10 + (text[i] - '0');
    return text.starts_with('-') ? -v : v;
}

// Whether n bytes at a and b are equal: inline for the short keys and names that repeat event
// after event (a call to memcmp costs more than the compare).
bool sameBytes(const char* a, const char* b, size_t n) {
    auto load8 = [](const char* p) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        return v;
    };
    auto load4 = [](const char* p) {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
    };
    if (n > 32) return std::memcmp(a, b, n) == 0;
    if (n > 16)
        return load8(a) == load8(b) && load8(a + 8) == load8(b + 8) &&
               load8(a + n - 16) == load8(b + n - 16) && load8(a + n - 8) == load8(b + n - 8);
    if (n >= 8) return load8(a) == load8(b) && load8(a + n - 8) == load8(b + n - 8);
    if (n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
    for (size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

// An event field's name of at most 4 bytes as a number, to switch on: its bytes and its size.
constexpr uint64_t fieldCode(std::string_view k) {
    uint64_t code = k.size();
    for (size_t i = 0; i < k.size() && i < 4; ++i) code |= uint64_t(uint8_t(k[i])) << (8 * (i + 1));
    return code;
}

// The common number, an integer of 1 to 18 digits, read inline (false for any other text).
bool smallInteger(std::string_view t, int64_t& out) {
    const bool negative = !t.empty() && t[0] == '-';
    const size_t digits = t.size() - negative;
    if (digits == 0 || digits > 18) return false;
    int64_t v = 0;
    for (size_t i = negative; i < t.size(); ++i) {
        const unsigned d = unsigned(t[i]) - '0';
        if (d > 9) return false;
        v = v * 10 + int64_t(d);
    }
    out = negative ? -v : v;
    return true;
}

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

// A field key's text as written, escapes and all: from after its opening quote to its closing
// quote, which is found back from the value (past the ':' and any blanks), not by a scan of the
// key. The field's value is not read.
std::string_view rawKeyText(od::field& f) {
    const char* begin = f.key().raw();
    const char* end = f.value().current_location().value_unsafe();
    do --end;
    while (*end != ':');
    do --end;
    while (*end != '"');
    return {begin, size_t(end - begin)};
}

// The same, where escapes matter: `escaped` says the key has some (read it unescaped then).
std::string_view rawKey(od::field& f, bool& escaped) {
    const std::string_view k = rawKeyText(f);
    escaped = k.find('\\') != std::string_view::npos;
    return escaped ? std::string_view() : k;
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

// What a stat key means to the importer.
enum class Role : uint8_t {
    Plain,
    Correlation,   // "correlation", "correlation_id"
    ExternalId,    // "External id" (2021: "external id")
    Device,        // "device"
    Stream,        // "stream"
    Grid,          // "grid": [x, y, z]
    Block,         // "block"
    Registers,     // "registers per thread"
    SharedMemory,  // "shared memory"
    Bytes,         // "bytes" of a copy or memset
    KernelDetails, // "kernel_details" (our own export)
    MemcpyDetails, // "memcpy_details"
    TfOp,          // "tf_op" (our own export)
    InputType,     // "Input type" of a cpu_op: its inputs' dtypes
    MemDeviceType, // "Device Type" of a [memory] event
    MemDeviceId,   // "Device Id"
    MemAddr,       // "Addr"
    MemBytes,      // "Bytes"
    MemTotalAllocated,
    MemTotalReserved,
    MetaName,      // "name" of an M event
    MetaSortIndex, // "sort_index"
};

enum class Kind : uint8_t { Host, Kernel, Memcpy, Memset, GpuAnnotation, Sync, Derived };

Kind kindOfCategory(std::string_view cat) {
    if (cat == "kernel" || cat == "Kernel") return Kind::Kernel;
    if (cat == "gpu_memcpy" || cat == "Memcpy") return Kind::Memcpy;
    if (cat == "gpu_memset" || cat == "Memset") return Kind::Memset;
    if (cat == "gpu_user_annotation") return Kind::GpuAnnotation;
    if (cat == "cuda_sync") return Kind::Sync;
    // Stepscope's Chrome trace export writes a device plane's derived lines (Steps, XLA Ops, ...)
    // under this category, so that they come back as derived lines of that device.
    if (cat == "derived") return Kind::Derived;
    return Kind::Host;
}

// Device lines: 0 work (a stream), 1 GPU annotations, 2 syncs, 3 derived lines from an export.
int lineKindOf(Kind k) {
    return k == Kind::GpuAnnotation ? 1 : k == Kind::Sync ? 2 : k == Kind::Derived ? 3 : 0;
}

// The runtime categories of the PyTorch TensorBoard plugin (trace.py EventTypeMap): runtime,
// cuda_runtime, xpu_runtime, mtia_runtime, glow_runtime, privateuse1_runtime, in any case; and
// cuda_driver (driver-API launches, such as cuBLAS's cuLaunchKernelEx on Hopper), as TorchTrace
// reads it.
bool isRuntimeCategory(std::string_view cat) {
    if (cat == "cuda_driver") return true;
    if (cat.size() < 7) return false;
    const std::string_view tail = cat.substr(cat.size() - 7);
    for (size_t i = 0; i < 7; ++i)
        if (std::tolower(static_cast<unsigned char>(tail[i])) != "runtime"[i]) return false;
    return cat.size() == 7 || cat[cat.size() - 8] == '_';
}

bool isOpCategory(std::string_view cat) {
    return cat == "cpu_op" || cat == "Operator";
}

// cudaGraphLaunch (also with a _v10000 suffix), cuGraphLaunch, hipGraphLaunch: a launch that
// replays a captured graph, whose kernels are not the work of the op it happened in.
bool isGraphLaunch(std::string_view name) {
    return name.find("GraphLaunch") != std::string_view::npos;
}

struct Arg {
    uint32_t key = 0; // builder stat key index
    Role role = Role::Plain;
    StatType type = StatType::Int64;
    uint64_t raw = 0;
    std::array<uint32_t, 3> dims{1, 1, 1}; // Grid / Block
    bool hasDims = false;
};

// A process or thread id: an integer, or a string (interned) that is not one.
struct Id {
    int64_t value = 0;
    bool isText = false;
    StringId text = 0;
};

struct DeviceEvent {
    int64_t start = 0, duration = 0;
    StringId name = 0, cat = 0;
    int64_t device = 0, stream = 0;
    Kind kind = Kind::Kernel;
    bool hasCorrelation = false;
    bool hasTfOp = false;
    uint64_t correlation = 0;
    uint32_t argBegin = 0, argEnd = 0;
    StringId details = 0;    // kernel_details or memcpy_details made from the args
    bool hasDetails = false; // (a kernel without launch geometry has an empty kernel_details)
};

// A stat of a device event, kept until the device's tracks exist.
using StatArg = statcodec::Entry;

// The device events' stats: in chunks, so that growing never copies what is already there.
class StatArgStore {
public:
    void push_back(const StatArg& a) {
        if (size_ % kChunk == 0) chunks_.emplace_back(new StatArg[kChunk]);
        chunks_.back()[size_ % kChunk] = a;
        ++size_;
    }
    const StatArg& operator[](size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
    size_t size() const { return size_; }
    void clear() {
        chunks_.clear();
        size_ = 0;
    }

private:
    static constexpr size_t kChunk = size_t(1) << 16;
    std::vector<std::unique_ptr<StatArg[]>> chunks_;
    size_t size_ = 0;
};

struct MemoryRecord {
    uint32_t track = 0;
    int64_t start = 0;
    int64_t deviceType = 0, deviceId = -1;
    int64_t bytes = 0;
    uint64_t addr = 0;
    int64_t totalAllocated = 0, totalReserved = 0;
    bool hasAddr = false, hasTotalAllocated = false, hasTotalReserved = false;
    uint32_t order = 0;
    StringId op = 0; // the cpu_op it happened in
};

struct OpSpan {
    int64_t start, end;
    StringId name;
    int32_t externalId;  // 0: none (or beyond int32: Kineto counts them from 1)
    StringId inputTypes; // its "Input type" list as written (0: none)
};
// A time on a host thread whose enclosing op is wanted: a launch (by its correlation id) or a
// [memory] event (by its index in the memory records).
struct Launch {
    int64_t start;
    uint64_t correlation;
    bool memory = false;
    bool runtime = false;    // a runtime event (the PyTorch plugin's launches, for the steps)
    int32_t externalId = 0;  // 0: none (or beyond int32)
    uint32_t durationNs = 0; // of a runtime event, capped at ~4.3 s
    bool graph = false;      // a CUDA/HIP graph launch: its kernels are not its op's own work
};

// The op a launch (by correlation id) happened in: its name, and its "Input type" unless the
// launch replays a graph.
struct LaunchOp {
    uint64_t correlation;
    StringId op;
    StringId inputTypes;
};

struct HostThread {
    uint32_t track = 0;
    uint32_t plane = 0;
    std::vector<OpSpan> ops;
    std::vector<Launch> launches;
    struct Open {
        int64_t start;
        StringId name, cat;
        std::vector<Arg> args;
    };
    std::vector<Open> open; // B events waiting for their E
};

struct HostProcess {
    uint32_t plane = 0;
    int64_t pid = 0;
    std::unordered_map<int64_t, uint32_t> threads; // tid -> index into threads_
};

struct IdHash {
    size_t operator()(const std::pair<int64_t, int64_t>& k) const {
        return std::hash<int64_t>()(k.first * 1000003 ^ k.second);
    }
};

struct MetaKey {
    uint32_t plane;
    StringId name, cat;
    bool operator==(const MetaKey&) const = default;
};
struct MetaKeyHash {
    size_t operator()(const MetaKey& k) const {
        return std::hash<uint64_t>()((uint64_t(k.plane) << 32 | k.name) * 31 + k.cat);
    }
};

struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

class Importer {
public:
    Importer(const char* json, size_t size, bool padded, ProfileBuilder& b, uint32_t host,
             const Progress* progress)
        : json_(json)
        , size_(size)
        , padded_(padded)
        , b_(b)
        , host_(host)
        , progress_(progress) {}

    std::string run(size_t windowBytes);

private:
    void readWhole();
    bool readByWindows(size_t windowBytes);
    size_t eventsArrayOpen() const;
    bool isRootEvents(const std::vector<char>& head, size_t open) const;
    size_t readEvents(size_t open, size_t windowBytes);
    size_t lastCommaOutsideStrings(size_t pos, size_t len) const;
    struct WindowEnd {
        size_t closedAt = std::string_view::npos; // the events' ']', where the window held it
        size_t resumeAt = std::string_view::npos; // the first event the window did not read
        bool insideString = false;                // the window was cut inside a string
    };
    WindowEnd readWindow(od::parser& parser, std::vector<char>& window, size_t pos, size_t len,
                         bool rest);
    void parseDocument(const char* text, size_t size, size_t capacity);
    std::string parseErrorMessage(const ParseFailure& f) const;
    size_t skipSpace(size_t offset) const;
    std::optional<size_t> offsetOf(const char* at) const;
    std::string_view whole(std::string_view raw) const;
    void document(od::document& doc);
    void traceEvents(od::array events);
    void element(od::value& v, const char* at);
    void commitSkipped();
    void event(od::object obj, const char* at);
    void metadataEvent(std::string_view name, const Id& pid, const Id& tid,
                       const std::vector<Arg>& args);
    [[gnu::noinline]] void flowField(std::string_view key, od::value& v, std::string_view& id,
                                     bool& local, std::string_view& bindPoint);
    [[gnu::noinline]] void flowPoint(char phase, std::string_view id, bool local,
                                     std::string_view bindPoint, std::string_view cat,
                                     std::string_view name, const Id& pid, const Id& tid,
                                     std::string_view tsText, bool hasTs, const char* at);
    void addFlowPoints(int64_t deltaPs);
    void deviceProperties(od::array devices);
    void distributedInfo(od::object info);
    void readArgs(od::object args, std::vector<Arg>& out, bool keepText);
    void readValue(od::value& v, uint32_t key, Role role, Arg& a);
    Id readId(od::value& v);
    int64_t time(std::string_view text, const char* at, const char* field);
    // The stat key of an arg named `raw` as written; `field`, where given, unescapes it.
    uint32_t key(std::string_view raw, Role* role, od::field* field = nullptr);
    StringId intern(std::string_view text);
    uint32_t hostThread(const Id& pid, const Id& tid, HostProcess** process = nullptr);
    uint32_t hostMetadata(uint32_t plane, StringId name, StringId cat);
    // What a category means, worked out once per category (a small cache by its id).
    struct Category {
        StringId id = 0xFFFFFFFFu;
        Kind kind = Kind::Host;
        bool op = false, runtime = false;
    };
    std::array<Category, 64> categories_{};
    const Category& categoryOf(StringId cat) {
        Category& c = categories_[cat & 63];
        if (c.id != cat) {
            const std::string_view text = b_.strings().get(cat);
            c = {cat, kindOfCategory(text), isOpCategory(text), isRuntimeCategory(text)};
        }
        return c;
    }
    void addHostEvent(uint32_t thread, int64_t start, int64_t duration, StringId name, StringId cat,
                      const std::vector<Arg>& args);
    void finishDevices();
    void finishMemory();
    void finishHostNames();
    const LaunchOp* opOfLaunch(uint64_t correlation) const;
    void setOp(const Launch& l, size_t slot, const OpSpan* op);

    const char* json_;
    size_t size_;
    bool padded_; // SIMDJSON_PADDING bytes after json_'s end may be read
    // The text being parsed where it is a copy of parts of json_ (a window of events, the
    // document without its events): where each part lies in json_, for positions in messages.
    struct Piece {
        const char* begin;
        size_t size;
        size_t offset;
    };
    std::array<Piece, 2> pieces_{};
    size_t pieceCount_ = 0;
    // The last event's skip, counted once the event is known to be whole (a window may cut it).
    std::optional<SkippedEvent> pendingSkip_;
    const char* cut_ = nullptr; // the ']' that closes a window cut before the text's end
    ProfileBuilder& b_;
    uint32_t host_;
    const Progress* progress_;
    size_t firstEvent_ = 0;

    bool haveOrigin_ = false;
    int64_t originUs_ = 0;
    std::optional<int64_t> baseTimeNs_;
    uint64_t eventCount_ = 0;
    uint64_t flowEvents_ = 0;
    std::map<std::string, uint64_t> skippedPhases_;
    struct Skipped {
        uint64_t count = 0;
        size_t firstAt = 0;
    };
    std::map<std::string, Skipped> skippedEvents_; // by reason
    std::string skippedSummary() const;
    std::vector<char> closed_; // the text with a missing closing ] added
    uint64_t unmatchedEnds_ = 0;
    int64_t lastPs_ = std::numeric_limits<int64_t>::min(); // the latest start or end read

    std::unordered_map<std::string, std::pair<uint32_t, Role>, StringHash, std::equal_to<>> keys_;
    // A key's text is kept in its slot: no pointer to follow on the hot path.
    struct KeySlot {
        char text[38];
        uint8_t size = 0xFF; // more than text holds: an empty slot
        Role role = Role::Plain;
        uint32_t key = 0;
    };
    static constexpr size_t kKeyCacheSize = 256;
    std::array<KeySlot, kKeyCacheSize> keyCache_{};
    // Names, categories and text values repeat event after event: a direct-mapped cache of
    // their ids in front of the string pool, whose hash reads every byte.
    struct TextSlot {
        StringId id = 0;
        uint32_t size = 0xFFFFFFFFu; // no text has this size: an empty slot
    };
    static constexpr size_t kTextCacheSize = 4096;
    std::vector<TextSlot> textCache_ = std::vector<TextSlot>(kTextCacheSize);
    std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>> textIds_;
    std::unordered_map<int64_t, uint32_t> processIndex_;
    std::vector<HostProcess> processes_;
    std::vector<HostThread> threads_;
    std::unordered_map<MetaKey, uint32_t, MetaKeyHash> hostMeta_; // one metadata per name and cat
    static constexpr uint32_t kNoMetadata = 0xFFFFFFFFu;
    struct MetaSlot {
        MetaKey key{0, 0, 0};
        uint32_t metadata = kNoMetadata;
    };
    static constexpr size_t kMetaCacheSize = 1024;
    std::vector<MetaSlot> metaCache_ = std::vector<MetaSlot>(kMetaCacheSize);
    std::vector<DeviceEvent> deviceEvents_;
    StatArgStore deviceArgs_;
    // kernel_details and memcpy_details texts by what they are made of, each made once.
    struct DetailsKey {
        std::array<int64_t, 8> v;
        bool operator==(const DetailsKey&) const = default;
    };
    struct DetailsKeyHash {
        size_t operator()(const DetailsKey& k) const {
            uint64_t h = 0;
            for (int64_t x : k.v) h = (h ^ uint64_t(x)) * 0x9E3779B97F4A7C15ull;
            return size_t(h ^ (h >> 29));
        }
    };
    std::unordered_map<DetailsKey, StringId, DetailsKeyHash> details_;
    bool deviceDetails(const DeviceEvent& d, bool hasKernelDetails, bool hasMemcpyDetails,
                       StringId& details);
    std::vector<MemoryRecord> memory_;
    struct Step {
        int64_t start, end;
        StringId name;
        int64_t number;
    };
    std::vector<Step> steps_;
    struct StepLaunch {
        int64_t start, end;
        uint64_t correlation;
    };
    std::vector<StepLaunch> stepLaunches_; // runtime launches, kept for extendSteps
    void extendSteps();
    std::unordered_map<int64_t, std::string> processNames_;
    std::unordered_map<int64_t, int64_t> processSort_;
    std::unordered_map<std::pair<int64_t, int64_t>, std::string, IdHash> threadNames_;
    std::map<int64_t, std::vector<StatValue>> deviceProps_;
    std::vector<StatValue> hostStats_;
    // The op of each launch, by correlation once finishHostNames is done; the first found for a
    // correlation is kept.
    std::vector<LaunchOp> launchOps_;
    mutable size_t launchHint_ = 0; // where opOfLaunch found the last one
    std::vector<Arg> args_;
    std::vector<statcodec::Entry> stats_; // an event's stats, added to the builder at once
    // Flow events other than Kineto's ac2g, bound to slices when the profile is built.
    struct FlowRecord {
        uint64_t flow; // by id, category and name (Perfetto's v1 flow identity)
        int64_t ps;
        int64_t pid, tid;
        ProfileBuilder::FlowPhase phase;
        bool enclosing;
    };
    std::vector<FlowRecord> flowRecords_;
    std::unordered_map<std::string, uint64_t, StringHash, std::equal_to<>> flowIds_;
    uint64_t flowsWithoutId_ = 0;
    uint32_t sinceReport_ = 0;
    StringId catKey_ = 0;
};

uint32_t Importer::key(std::string_view raw, Role* role, od::field* field) {
    // Arg keys repeat event after event: a small direct-mapped cache, by the text as written,
    // in front of the map.
    const std::string_view name = raw;
    const size_t n = name.size();
    const size_t h =
        n == 0
            ? 0
            : (n * 131 + uint8_t(name[0]) * 31 + uint8_t(name[n / 2]) * 7 + uint8_t(name[n - 1])) &
                  (kKeyCacheSize - 1);
    KeySlot& slot = keyCache_[h];
    if (n <= sizeof slot.text && slot.size == n && sameBytes(slot.text, name.data(), n)) {
        *role = slot.role;
        return slot.key;
    }
    std::string unescaped;
    if (field && raw.find('\\') != std::string_view::npos)
        unescaped = std::string(std::string_view(field->unescaped_key()));
    const std::string_view text = field && !unescaped.empty() ? std::string_view(unescaped) : raw;
    auto it = keys_.find(text);
    if (it == keys_.end()) {
        static const std::pair<std::string_view, Role> kRoles[] = {
            {"correlation", Role::Correlation},
            {"correlation_id", Role::Correlation},
            {"External id", Role::ExternalId},
            {"external id", Role::ExternalId},
            {"device", Role::Device},
            {"stream", Role::Stream},
            {"grid", Role::Grid},
            {"block", Role::Block},
            {"registers per thread", Role::Registers},
            {"shared memory", Role::SharedMemory},
            {"bytes", Role::Bytes},
            {"kernel_details", Role::KernelDetails},
            {"memcpy_details", Role::MemcpyDetails},
            {"tf_op", Role::TfOp},
            {"Input type", Role::InputType},
            {"Device Type", Role::MemDeviceType},
            {"Device Id", Role::MemDeviceId},
            {"Addr", Role::MemAddr},
            {"Bytes", Role::MemBytes},
            {"Total Allocated", Role::MemTotalAllocated},
            {"Total Reserved", Role::MemTotalReserved},
            {"name", Role::MetaName},
            {"sort_index", Role::MetaSortIndex},
        };
        Role r = Role::Plain;
        for (const auto& [known, knownRole] : kRoles)
            if (known == text) r = knownRole;
        // Kineto's "correlation" is XProf's correlation_id: one name, so flows join.
        const std::string_view statName = r == Role::Correlation ? "correlation_id" : text;
        it = keys_.emplace(std::string(text), std::make_pair(b_.statKey(b_.intern(statName)), r))
                 .first;
    }
    if (n <= sizeof slot.text) { // longer keys are not cached
        std::memcpy(slot.text, name.data(), n);
        slot.size = uint8_t(n);
        slot.key = it->second.first;
        slot.role = it->second.second;
    }
    *role = it->second.second;
    return it->second.first;
}

StringId Importer::intern(std::string_view text) {
    // The slot: a hash of the size and the first and last 8 bytes (texts that differ only in
    // between share a slot, and are told apart by the compare).
    const size_t n = text.size();
    uint64_t h = n * 0x9E3779B97F4A7C15ull;
    if (n >= 8) {
        uint64_t first, last;
        std::memcpy(&first, text.data(), 8);
        std::memcpy(&last, text.data() + n - 8, 8);
        h = (h ^ first) * 0xC2B2AE3D27D4EB4Full;
        h = (h ^ last) * 0x165667B19E3779F9ull;
    } else {
        for (char c : text) h = (h ^ uint8_t(c)) * 0x100000001B3ull;
    }
    TextSlot& slot = textCache_[(h ^ (h >> 32)) & (kTextCacheSize - 1)];
    if (slot.size == n) {
        const std::string_view cached = b_.strings().get(slot.id);
        if (sameBytes(cached.data(), text.data(), n)) return slot.id;
    }
    const StringId id = b_.intern(text);
    slot = {id, uint32_t(std::min<size_t>(n, 0xFFFFFFFEu))};
    return id;
}

Id Importer::readId(od::value& v) {
    Id id;
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
            id.text = intern(tok);
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
            id.text = intern(s);
        }
    } else {
        skipEvent("a pid or tid is neither a number nor a string",
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
    return id;
}

// Into `a`, not returned: a returned Arg copied into a vector stalls on store forwarding.
void Importer::readValue(od::value& v, uint32_t keyIndex, Role role, Arg& a) {
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
        if (smallInteger(tok, i)) {
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
            a.raw = intern(tok);
        }
        break;
    }
    case od::json_type::string:
        a.type = StatType::Str;
        a.raw = intern(stringOf(v));
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
        const std::string_view raw = whole(arr.raw_json());
        a.type = StatType::Str;
        a.raw = intern(trimToken(raw));
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
        a.raw = intern(trimToken(whole(obj.raw_json())));
        break;
    }
    }
}

void Importer::readArgs(od::object args, std::vector<Arg>& out, bool /*keepText*/) {
    for (auto&& result : args) {
        if (result.error()) throw simdjson::simdjson_error(result.error());
        od::field& f = result.value_unsafe(); // a reference: see event()
        Role role;
        const uint32_t keyIndex = key(rawKeyText(f), &role, &f);
        Arg& a = out.emplace_back();
        readValue(f.value(), keyIndex, role, a);
        if (a.key == 0) out.pop_back();
    }
}

int64_t Importer::time(std::string_view text, const char* at, const char* field) {
    const int64_t origin = haveOrigin_ ? originUs_ : wholeMicros(text);
    int64_t ps;
    if (!parseMicros(text, origin, ps))
        skipEvent(std::string("\"") + field + "\" is not a time in µs this importer can hold", at);
    originUs_ = origin; // the first readable time is the origin
    haveOrigin_ = true;
    return ps;
}

uint32_t Importer::hostThread(const Id& pid, const Id& tid, HostProcess** processOut) {
    auto pit = processIndex_.find(pid.value);
    if (pit == processIndex_.end()) {
        HostProcess p;
        p.pid = pid.value;
        p.plane = b_.addPlane(host_, int64_t(processes_.size()), "/host:CPU");
        processes_.push_back(std::move(p));
        pit = processIndex_.emplace(pid.value, uint32_t(processes_.size() - 1)).first;
    }
    HostProcess& p = processes_[pit->second];
    if (processOut) *processOut = &p;
    auto tit = p.threads.find(tid.value);
    if (tit != p.threads.end()) return tit->second;
    HostThread t;
    t.plane = p.plane;
    t.track = b_.addTrack(p.plane, tid.value, "thread " + std::to_string(tid.value));
    threads_.push_back(std::move(t));
    p.threads.emplace(tid.value, uint32_t(threads_.size() - 1));
    return uint32_t(threads_.size() - 1);
}

uint32_t Importer::hostMetadata(uint32_t plane, StringId name, StringId cat) {
    const MetaKey k{plane, name, cat};
    // A direct-mapped cache in front of the map: names repeat event after event.
    MetaSlot& slot = metaCache_[MetaKeyHash()(k) & (kMetaCacheSize - 1)];
    if (slot.metadata != kNoMetadata && slot.key == k) return slot.metadata;
    const auto it = hostMeta_.find(k);
    if (it != hostMeta_.end()) {
        slot = {k, it->second};
        return it->second;
    }
    const uint32_t m = b_.addMetadata(plane, int64_t(hostMeta_.size()), b_.strings().get(name), {});
    if (cat) b_.addMetadataStat(m, StatValue{catKey_, StatType::Str, cat});
    hostMeta_.emplace(k, m);
    slot = {k, m};
    return m;
}

void Importer::addHostEvent(uint32_t thread, int64_t start, int64_t duration, StringId name,
                            StringId cat, const std::vector<Arg>& args) {
    HostThread& t = threads_[thread];
    b_.addEvent(t.track, start, duration, hostMetadata(t.plane, name, cat));
    uint64_t correlation = 0;
    bool hasCorrelation = false;
    int64_t externalId = 0;
    StringId inputTypes = 0;
    stats_.clear();
    for (const Arg& a : args) {
        stats_.push_back({a.raw, a.key, a.type});
        if (a.role == Role::InputType && a.type == StatType::Str) inputTypes = StringId(a.raw);
        if (a.role == Role::Correlation && a.type != StatType::Double && a.type != StatType::Str) {
            correlation = a.raw;
            hasCorrelation = true;
        }
        if (a.role == Role::ExternalId && a.type == StatType::Int64) externalId = int64_t(a.raw);
    }
    b_.addEventStats(stats_.data(), stats_.size());
    const Category& category = categoryOf(cat);
    const int32_t shortId = externalId > 0 && externalId <= std::numeric_limits<int32_t>::max()
                                ? int32_t(externalId)
                                : 0;
    if (category.op) t.ops.push_back({start, start + duration, name, shortId, inputTypes});
    const std::string_view nameText = b_.strings().get(name);
    if (hasCorrelation)
        t.launches.push_back(
            {start, correlation, false, category.runtime, shortId,
             uint32_t(std::min<int64_t>(duration / 1000, std::numeric_limits<uint32_t>::max())),
             isGraphLaunch(nameText)});
    if (nameText.starts_with("ProfilerStep#")) {
        int64_t number = -1;
        const std::string_view digits = nameText.substr(13);
        if (!digits.empty() && digits.size() < 18 &&
            std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
            number = std::stoll(std::string(digits));
        steps_.push_back({start, start + duration, name, number});
    }
}

void Importer::metadataEvent(std::string_view name, const Id& pid, const Id& tid,
                             const std::vector<Arg>& args) {
    const Arg* value = nullptr;
    for (const Arg& a : args)
        if (a.role == Role::MetaName || a.role == Role::MetaSortIndex) value = &a;
    if (!value) return;
    if (name == "process_name" && value->type == StatType::Str)
        processNames_[pid.value] = std::string(b_.strings().get(StringId(value->raw)));
    else if (name == "thread_name" && value->type == StatType::Str)
        threadNames_[{pid.value, tid.value}] = std::string(b_.strings().get(StringId(value->raw)));
    else if (name == "process_sort_index" && value->type == StatType::Int64)
        processSort_[pid.value] = int64_t(value->raw);
}

void Importer::event(od::object obj, const char* at) {
    if (++sinceReport_ == 65536) {
        sinceReport_ = 0;
        if (!b_.error().empty()) fail(b_.error(), at);
        if (progress_) {
            if (progress_->cancelled()) fail("cancelled");
            progress_->report("Reading events", double(offsetOf(at).value_or(0)) / double(size_));
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
            if (v.type() != od::json_type::string) skipEvent("\"ph\" is not a string", at);
            ph = stringOf(v);
            break;
        case fieldCode("name"):
            if (v.type() != od::json_type::string) skipEvent("\"name\" is not a string", at);
            name = stringOf(v);
            break;
        case fieldCode("cat"):
            if (v.type() != od::json_type::string) skipEvent("\"cat\" is not a string", at);
            cat = stringOf(v);
            break;
        case fieldCode("ts"):
            if (v.type() != od::json_type::number) skipEvent("\"ts\" is not a number", at);
            tsText = trimToken(v.raw_json_token());
            hasTs = true;
            break;
        case fieldCode("dur"):
            if (v.type() != od::json_type::number) skipEvent("\"dur\" is not a number", at);
            durText = trimToken(v.raw_json_token());
            hasDur = true;
            break;
        case fieldCode("pid"):
            pid = readId(v);
            break;
        case fieldCode("tid"):
            tid = readId(v);
            break;
        case fieldCode("args"):
            if (v.type() == od::json_type::null) continue; // no args
            if (v.type() != od::json_type::object) skipEvent("\"args\" is not an object", at);
            readArgs(v.get_object(), args_, true);
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
    if (ph.empty()) skipEvent("the event has no \"ph\" (phase)", at);
    const char phase = ph.size() == 1 ? ph[0] : '?';
    if (phase == 'M') {
        metadataEvent(name, pid, tid, args_);
        return;
    }
    if (phase == 's' || phase == 't' || phase == 'f') {
        // Kineto's ac2g arrows repeat the correlation ids the events carry, from which the
        // model joins launches to kernels; other flows are bound to slices (flowPoint).
        ++flowEvents_;
        if (cat != "ac2g")
            flowPoint(phase, flowId, localFlowId, bindPoint, cat, name, pid, tid, tsText, hasTs,
                      at);
        return;
    }
    if (phase != 'X' && phase != 'B' && phase != 'E' && phase != 'i' && phase != 'I') {
        ++skippedPhases_[std::string(ph)];
        return;
    }
    if (!hasTs) skipEvent("the event has no \"ts\"", at);
    const int64_t start = time(tsText, at, "ts");
    int64_t duration = 0;
    if (phase == 'X') {
        if (!hasDur) skipEvent("the complete (\"X\") event has no \"dur\"", at);
        if (!parseMicros(durText, 0, duration) || duration < 0)
            skipEvent("\"dur\" is negative or not a duration in µs", at);
    }
    lastPs_ = std::max(lastPs_, start + duration);
    const StringId nameId = intern(name);
    const StringId catId = intern(cat);
    const Kind kind = categoryOf(catId).kind;
    if (kind != Kind::Host && phase == 'X') {
        DeviceEvent d;
        d.start = start;
        d.duration = duration;
        d.name = nameId;
        d.cat = catId;
        d.kind = kind;
        d.device = pid.isText ? 0 : pid.value;
        d.stream = tid.value;
        if (tid.isText) {
            // 2021: "stream 7".
            const std::string_view t = b_.strings().get(tid.text);
            if (t.starts_with("stream ")) {
                int64_t s = 0;
                for (char c : t.substr(7))
                    if (c >= '0' && c <= '9') s = s * 10 + (c - '0');
                d.stream = s;
            }
        }
        d.argBegin = uint32_t(deviceArgs_.size());
        bool hasKernelDetails = false, hasMemcpyDetails = false;
        for (const Arg& a : args_) {
            if (a.role == Role::Device && a.type == StatType::Int64) d.device = int64_t(a.raw);
            if (a.role == Role::Stream && a.type == StatType::Int64) d.stream = int64_t(a.raw);
            if (a.role == Role::Correlation &&
                (a.type == StatType::Int64 || a.type == StatType::Uint64)) {
                d.hasCorrelation = true;
                d.correlation = a.raw;
            }
            hasKernelDetails |= a.role == Role::KernelDetails;
            hasMemcpyDetails |= a.role == Role::MemcpyDetails;
            d.hasTfOp |= a.role == Role::TfOp;
            deviceArgs_.push_back({a.raw, a.key, a.type});
        }
        d.argEnd = uint32_t(deviceArgs_.size());
        d.hasDetails = deviceDetails(d, hasKernelDetails, hasMemcpyDetails, d.details);
        if (kind == Kind::Derived) {
            // An exported derived line: its tid is the line id, whatever stream its events name.
            d.device = pid.value;
            d.stream = tid.value;
        }
        deviceEvents_.push_back(d);
        return;
    }
    const uint32_t thread = hostThread(pid, tid);
    if (phase == 'B') {
        threads_[thread].open.push_back({start, nameId, catId, args_});
        return;
    }
    if (phase == 'E') {
        HostThread& t = threads_[thread];
        if (t.open.empty()) {
            ++unmatchedEnds_;
            return;
        }
        HostThread::Open o = std::move(t.open.back());
        t.open.pop_back();
        o.args.insert(o.args.end(), args_.begin(), args_.end());
        addHostEvent(thread, o.start, std::max<int64_t>(0, start - o.start), o.name, o.cat, o.args);
        return;
    }
    if ((phase == 'i' || phase == 'I') && name == "[memory]") {
        MemoryRecord m;
        m.track = thread;
        m.start = start;
        m.order = uint32_t(memory_.size());
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
        threads_[thread].launches.push_back({start, memory_.size(), true});
        memory_.push_back(m);
        return;
    }
    addHostEvent(thread, start, duration, nameId, catId, args_);
}

// "id", "id2" ({"local": id} or {"global": id}) and "bp" of a flow event.
void Importer::flowField(std::string_view key, od::value& v, std::string_view& id, bool& local,
                         std::string_view& bindPoint) {
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

// A flow event: its flow is named by its id (an "id2" "local" id within its process), category
// and name, as Perfetto's JSON importer names v1 flows (FlowTracker::GetFlowIdForV1Event).
void Importer::flowPoint(char phase, std::string_view id, bool local, std::string_view bindPoint,
                         std::string_view cat, std::string_view name, const Id& pid, const Id& tid,
                         std::string_view tsText, bool hasTs, const char* at) {
    if (id.empty()) {
        ++flowsWithoutId_;
        return;
    }
    if (!hasTs) skipEvent("the event has no \"ts\"", at);
    const int64_t ps = time(tsText, at, "ts");
    std::string key;
    key.reserve(id.size() + cat.size() + name.size() + 24);
    key.append(id).push_back('\0');
    if (local) key.append(std::to_string(pid.value));
    key.push_back('\0');
    key.append(cat).push_back('\0');
    key.append(name);
    const auto it = flowIds_.try_emplace(std::move(key), flowIds_.size()).first;
    const auto flowPhase = phase == 's'   ? ProfileBuilder::FlowPhase::Begin
                           : phase == 't' ? ProfileBuilder::FlowPhase::Step
                                          : ProfileBuilder::FlowPhase::End;
    flowRecords_.push_back(
        {it->second, ps, pid.value, tid.value, flowPhase, phase != 'f' || bindPoint == "e"});
}

// The flow points, on the tracks of their threads (a thread with no slices binds nothing), in
// the order of their times (Perfetto reads a trace in time order; points at one time keep the
// file's order).
void Importer::addFlowPoints(int64_t deltaPs) {
    std::stable_sort(flowRecords_.begin(), flowRecords_.end(),
                     [](const FlowRecord& a, const FlowRecord& b) { return a.ps < b.ps; });
    for (const FlowRecord& f : flowRecords_) {
        const auto p = processIndex_.find(f.pid);
        if (p == processIndex_.end()) continue;
        const auto t = processes_[p->second].threads.find(f.tid);
        if (t == processes_[p->second].threads.end()) continue;
        int64_t ps;
        if (__builtin_add_overflow(f.ps, deltaPs, &ps)) continue;
        b_.addFlowPoint(f.flow, threads_[t->second].track, ps, f.phase, f.enclosing);
    }
    std::vector<FlowRecord>().swap(flowRecords_);
}

void Importer::traceEvents(od::array events) {
    for (auto e : events) {
        od::value v = e.value();
        element(v, v.current_location().value_unsafe());
    }
    commitSkipped();
}

// One element of traceEvents. A skip is counted when the next element starts (or the array
// ends), so that an event a window cut, read again from the next window, counts once.
void Importer::element(od::value& v, const char* at) {
    commitSkipped();
    if (v.type() != od::json_type::object)
        fail("traceEvents[" + std::to_string(eventCount_) + "] is not an event object", at);
    ++eventCount_;
    try {
        event(v.get_object(), at);
    } catch (SkippedEvent& e) {
        pendingSkip_ = std::move(e);
    }
}

void Importer::commitSkipped() {
    if (!pendingSkip_) return;
    Skipped& s = skippedEvents_[pendingSkip_->reason];
    if (s.count++ == 0) s.firstAt = offsetOf(pendingSkip_->at).value_or(0);
    pendingSkip_.reset();
}

void Importer::deviceProperties(od::array devices) {
    for (auto element : devices) {
        od::value v = element.value();
        if (v.type() != od::json_type::object) continue;
        std::vector<Arg> props;
        readArgs(v.get_object(), props, true);
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
        if (id >= 0) deviceProps_[id] = std::move(stats);
    }
}

void Importer::distributedInfo(od::object info) {
    std::vector<Arg> args;
    readArgs(info, args, true);
    for (const Arg& a : args) {
        const std::string name =
            "distributed " + std::string(b_.strings().get(b_.statKeyName(a.key)));
        hostStats_.push_back(StatValue{b_.intern(name), a.type, a.raw});
    }
}

void Importer::document(od::document& doc) {
    const od::json_type t = doc.type();
    if (t == od::json_type::array) {
        traceEvents(doc.get_array());
        return;
    }
    if (t != od::json_type::object)
        fail("not a Chrome trace: the JSON is not an object or an array of events", json_);
    bool sawEvents = false;
    od::object top = doc.get_object();
    for (od::field f : top) {
        bool escaped;
        const std::string_view k = rawKey(f, escaped);
        od::value v = f.value();
        const char* at = v.current_location().value_unsafe();
        if (escaped) {
            continue;
        } else if (k == "traceEvents") {
            if (v.type() != od::json_type::array) fail("\"traceEvents\" is not an array", at);
            sawEvents = true;
            traceEvents(v.get_array());
        } else if (k == "deviceProperties") {
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
                const uint32_t keyIndex = key(k, &role);
                Arg a;
                readValue(v, keyIndex, Role::Plain, a);
                hostStats_.push_back(StatValue{b_.statKeyName(keyIndex), a.type, a.raw});
            }
        }
    }
    if (!sawEvents) fail("not a Chrome trace: the JSON object has no \"traceEvents\" array", json_);
}

// The framework op of the device work a launch (an event with a correlation id) caused: the
// cpu_op that carries the launch's "External id", or, for a launch without one (or whose id no
// op carries), the innermost cpu_op open on the launching thread when the launch began. Kineto
// stamps a launch with the External id of its op, and the PyTorch profiler's TensorBoard plugin
// joins them by it over all threads (event_parser.py parse_nodes: externalid_to_runtime, popped
// for each op of every tid): an op and its launches can be on different threads. Ids are looked
// up within one process, and only an op that encloses the launch in time takes it (ids are
// reused: on alexnet_a100_small 47 of 361 launches carry the id of an unrelated op elsewhere in
// time; the PyTorch tab's TorchTrace applies the same rule). Where several ops of a process
// qualify, an op open on the launching thread wins, otherwise the first of the process (threads
// in order of first appearance, each thread's ops from the earliest start).
// Runtime launches are kept, compactly, for the device steps (extendSteps).
void Importer::finishHostNames() {
    // Launches that no op open on their thread holds by External id: looked up over the ops of
    // their process once every thread is done (rare in most traces, so the index of ops by id is
    // made only when one is needed).
    struct ById {
        uint32_t plane;
        Launch launch;
        const OpSpan* innermost; // the fallback: the innermost op open on its thread (or none)
        size_t slot;             // its entry in launchOps_ (a launch) or memory_ (a [memory] event)
    };
    std::vector<ById> byId;
    // Ops by start, an enclosing op before the ops it holds.
    auto opOrder = [](const OpSpan& a, const OpSpan& b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;
    };
    for (HostThread& t : threads_) {
        if (t.launches.empty()) continue;
        if (!steps_.empty())
            for (const Launch& l : t.launches)
                if (l.runtime && !l.memory)
                    stepLaunches_.push_back(
                        {l.start, l.start + int64_t(l.durationNs) * 1000, l.correlation});
        // The launch's op, or where it is looked up by id: its slot holds no op until then.
        auto found = [&](const Launch& l, const OpSpan* op, const OpSpan* innermost) {
            const bool later = !op && l.externalId != 0;
            if (!op && !later && !innermost) return;
            size_t slot = l.correlation; // a [memory] event's index in memory_
            if (!l.memory) {
                slot = launchOps_.size();
                launchOps_.push_back({l.correlation, 0, 0});
            }
            if (later)
                byId.push_back({t.plane, l, innermost, slot});
            else
                setOp(l, slot, op ? op : innermost);
        };
        if (t.ops.empty()) {
            // Only ops of other threads can hold these launches: by External id.
            for (const Launch& l : t.launches)
                if (!l.memory && l.externalId != 0) found(l, nullptr, nullptr);
            std::vector<Launch>().swap(t.launches);
            continue;
        }
        std::sort(t.launches.begin(), t.launches.end(),
                  [](const Launch& a, const Launch& b) { return a.start < b.start; });
        std::sort(t.ops.begin(), t.ops.end(), opOrder);
        std::vector<const OpSpan*> stack;
        size_t next = 0;
        for (const Launch& l : t.launches) {
            while (next < t.ops.size() && t.ops[next].start <= l.start) {
                while (!stack.empty() && stack.back()->end <= t.ops[next].start) stack.pop_back();
                stack.push_back(&t.ops[next]);
                ++next;
            }
            while (!stack.empty() && stack.back()->end <= l.start) stack.pop_back();
            // An op that overlaps without nesting may sit on top; look down for the ones that
            // hold the launch.
            const OpSpan* innermost = nullptr;
            const OpSpan* holder = nullptr;
            for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
                if ((*it)->start > l.start || (*it)->end <= l.start) continue;
                if (!innermost) innermost = *it;
                if (l.externalId == 0) break;
                if ((*it)->externalId == l.externalId) {
                    holder = *it;
                    break;
                }
            }
            found(l, holder, innermost);
        }
        std::vector<Launch>().swap(t.launches);
    }
    if (!byId.empty()) {
        // plane << 32 | External id of the ops wanted, and those ops: threads in order, each
        // thread's from the earliest start.
        auto keyOf = [](uint32_t plane, int32_t id) {
            return uint64_t(plane) << 32 | uint32_t(id);
        };
        std::vector<uint64_t> wanted;
        for (const ById& b : byId) wanted.push_back(keyOf(b.plane, b.launch.externalId));
        std::sort(wanted.begin(), wanted.end());
        wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
        std::vector<std::pair<uint64_t, const OpSpan*>> ops;
        for (HostThread& t : threads_) {
            // Threads without launches still hold their ops in the order read. Threads with
            // launches are sorted already and must not be sorted again: byId holds pointers into
            // their ops.
            if (!std::is_sorted(t.ops.begin(), t.ops.end(), opOrder))
                std::sort(t.ops.begin(), t.ops.end(), opOrder);
            for (const OpSpan& o : t.ops)
                if (o.externalId > 0 &&
                    std::binary_search(wanted.begin(), wanted.end(), keyOf(t.plane, o.externalId)))
                    ops.emplace_back(keyOf(t.plane, o.externalId), &o);
        }
        std::stable_sort(ops.begin(), ops.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const ById& b : byId) {
            // The first op of the launch's process with its External id that encloses it.
            const OpSpan* op = b.innermost;
            const int64_t end = b.launch.start + int64_t(b.launch.durationNs) * 1000;
            for (auto it =
                     std::lower_bound(ops.begin(), ops.end(), keyOf(b.plane, b.launch.externalId),
                                      [](const auto&a, uint64_t k) { return a.first < k; });
                 it != ops.end() && it->first == keyOf(b.plane, b.launch.externalId); ++it)
                if (it->second->start <= b.launch.start && end <= it->second->end) {
                    op = it->second;
                    break;
                }
            setOp(b.launch, b.slot, op);
        }
    }
    for (HostThread& t : threads_) std::vector<OpSpan>().swap(t.ops);
    // Launches whose op none is are dropped; the first found for a correlation id is kept.
    launchOps_.erase(std::remove_if(launchOps_.begin(), launchOps_.end(),
                                    [](const LaunchOp& l) { return l.op == 0; }),
                     launchOps_.end());
    std::stable_sort(
        launchOps_.begin(), launchOps_.end(),
        [](const LaunchOp& a, const LaunchOp& b) { return a.correlation < b.correlation; });
    launchOps_.erase(std::unique(launchOps_.begin(), launchOps_.end(),
                                 [](const LaunchOp& a, const LaunchOp& b) {
                                     return a.correlation == b.correlation;
                                 }),
                     launchOps_.end());
    // Plane and thread names from the M events.
    for (HostProcess& p : processes_) {
        const auto it = processNames_.find(p.pid);
        const std::string pidText = p.pid >= 0 ? "pid " + std::to_string(p.pid) : "process";
        std::string name = "/host:CPU ";
        if (it != processNames_.end() && !it->second.empty())
            name += it->second + " (" + pidText + ")";
        else
            name += pidText;
        if (p.pid < 0) {
            // A process named by text: its text is its name.
            for (const auto& [text, id] : textIds_)
                if (id == p.pid) name = "/host:CPU " + (text.empty() ? "(no pid)" : text);
        }
        b_.setPlaneName(p.plane, name);
        // The pid and process name, for an export to give back.
        if (p.pid >= 0)
            b_.addPlaneStat(p.plane, StatValue{b_.intern("pid"), StatType::Int64, uint64_t(p.pid)});
        if (it != processNames_.end())
            b_.addPlaneStat(p.plane, StatValue{b_.intern("process_name"), StatType::Str,
                                               b_.intern(it->second)});
        for (const StatValue& s : hostStats_) b_.addPlaneStat(p.plane, s);
        const auto sort = processSort_.find(p.pid);
        if (sort != processSort_.end())
            b_.addPlaneStat(p.plane, StatValue{b_.intern("process_sort_index"), StatType::Int64,
                                               uint64_t(sort->second)});
        for (const auto& [tid, index] : p.threads) {
            const auto tn = threadNames_.find({p.pid, tid});
            if (tn != threadNames_.end())
                b_.setTrackName(threads_[index].track, tn->second);
            else if (tid < 0)
                for (const auto& [text, id] : textIds_)
                    if (id == tid)
                        b_.setTrackName(threads_[index].track, text.empty() ? "(no tid)" : text);
        }
    }
}

// Device work comes mostly in the order of its correlation ids: the search starts where the last
// one ended.
const LaunchOp* Importer::opOfLaunch(uint64_t correlation) const {
    const size_t n = launchOps_.size();
    for (size_t i = launchHint_; i < n && i < launchHint_ + 2; ++i)
        if (launchOps_[i].correlation == correlation) return &launchOps_[launchHint_ = i];
    const auto it =
        std::lower_bound(launchOps_.begin(), launchOps_.end(), correlation,
                         [](const LaunchOp& a, uint64_t c) { return a.correlation < c; });
    if (it == launchOps_.end() || it->correlation != correlation) return nullptr;
    launchHint_ = size_t(it - launchOps_.begin());
    return &*it;
}

// Records the op a launch or [memory] event happened in (none: nothing to record).
void Importer::setOp(const Launch& l, size_t slot, const OpSpan* op) {
    if (l.memory) {
        memory_[slot].op = op ? op->name : 0;
        return;
    }
    launchOps_[slot].op = op ? op->name : 0;
    launchOps_[slot].inputTypes = op && !l.graph ? op->inputTypes : 0;
}

// The kernel_details of a kernel (from grid, block, registers per thread, shared memory) or the
// memcpy_details of a copy or memset, unless the event brought its own; false for other events.
// A kernel without launch geometry (ROCm traces) gets the fields it has, or an empty text: it is
// still a kernel (Profile::kernels()), whose geometry is not recorded.
bool Importer::deviceDetails(const DeviceEvent& d, bool hasKernelDetails, bool hasMemcpyDetails,
                             StringId& details) {
    const bool kernel = d.kind == Kind::Kernel && !hasKernelDetails;
    const bool copy = (d.kind == Kind::Memcpy || d.kind == Kind::Memset) && !hasMemcpyDetails;
    if (!kernel && !copy) return false;
    std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
    bool hasGrid = false, hasBlock = false;
    int64_t regs = -1, shared = -1, bytes = -1;
    for (const Arg& a : args_) {
        if (a.role == Role::Grid && a.hasDims) grid = a.dims, hasGrid = true;
        if (a.role == Role::Block && a.hasDims) block = a.dims, hasBlock = true;
        if (a.type == StatType::Int64) {
            if (a.role == Role::Registers) regs = int64_t(a.raw);
            if (a.role == Role::SharedMemory) shared = int64_t(a.raw);
            if (a.role == Role::Bytes) bytes = int64_t(a.raw);
        }
    }
    const bool geometry = hasGrid && hasBlock;
    const CopyKind ck =
        d.kind == Kind::Memcpy ? copyKindFromName(b_.strings().get(d.name)) : CopyKind::Memset;
    const DetailsKey k = kernel
                             ? DetailsKey{{geometry ? 0 : 2, regs, shared, grid[0], grid[1],
                                           grid[2], block[0], int64_t(block[1]) << 32 | block[2]}}
                             : DetailsKey{{1, int64_t(ck), bytes, d.device, 0, 0, 0, 0}};
    const auto it = details_.find(k);
    if (it != details_.end()) {
        details = it->second;
        return true;
    }
    std::string text;
    if (kernel) {
        // The TF 2020 spelling (regs, shm, grid, block): Kineto's "shared memory" is the
        // kernel's static plus dynamic shared memory in one number.
        if (regs >= 0) text += "regs:" + std::to_string(regs);
        if (shared >= 0) text += (text.empty() ? "shm:" : " shm:") + std::to_string(shared);
        if (geometry)
            text += (text.empty() ? "grid:" : " grid:") + std::to_string(grid[0]) + "," +
                    std::to_string(grid[1]) + "," + std::to_string(grid[2]) +
                    " block:" + std::to_string(block[0]) + "," + std::to_string(block[1]) + "," +
                    std::to_string(block[2]);
    } else {
        text = "kind:" + std::string(copyKindName(ck));
        if (bytes >= 0) text += " size:" + std::to_string(bytes);
        text += " dest:" + std::to_string(d.device);
    }
    details = b_.intern(text);
    details_.emplace(k, details);
    return true;
}

void Importer::finishDevices() {
    // First, while the builder has not grown by the device events: its temporaries are freed
    // before the columns need the memory.
    extendSteps();
    // Devices: those with events and those described in deviceProperties.
    std::map<int64_t, uint32_t> planes;
    for (const auto& [id, props] : deviceProps_) planes[id] = 0;
    for (const DeviceEvent& d : deviceEvents_) planes[d.device] = 0;
    for (auto& [device, plane] : planes) {
        plane = b_.addPlane(host_, 1000 + device, "/device:GPU:" + std::to_string(device));
        const auto it = deviceProps_.find(device);
        if (it != deviceProps_.end())
            for (const StatValue& s : it->second) b_.addPlaneStat(plane, s);
    }
    // Lines: one per (device, stream) for work, plus annotation and sync lines.
    struct LineKey {
        int64_t device, stream;
        int kind; // 0 work, 1 annotations, 2 syncs
        bool operator<(const LineKey& o) const {
            return std::tie(device, kind, stream) < std::tie(o.device, o.kind, o.stream);
        }
    };
    // (Device events come in runs on one stream: the last line looked up is kept.)
    std::map<LineKey, uint16_t> lineFlags;
    LineKey lastLine{0, 0, -1};
    uint16_t* lastFlags = nullptr;
    for (const DeviceEvent& d : deviceEvents_) {
        const LineKey line{d.device, d.stream, lineKindOf(d.kind)};
        if (!lastFlags || line < lastLine || lastLine < line) {
            lastFlags = &lineFlags[line];
            lastLine = line;
        }
        uint16_t& flags = *lastFlags;
        if (d.kind == Kind::Kernel) flags |= StreamCompute;
        if (d.kind == Kind::Memset) flags |= StreamMemset;
        if (d.kind == Kind::Memcpy) {
            switch (copyKindFromName(b_.strings().get(d.name))) {
            case CopyKind::HostToDevice:
                flags |= StreamMemcpyH2D;
                break;
            case CopyKind::DeviceToHost:
                flags |= StreamMemcpyD2H;
                break;
            case CopyKind::PeerToPeer:
                flags |= StreamMemcpyP2P;
                break;
            default:
                flags |= StreamMemcpyD2D;
            }
        }
    }
    std::map<LineKey, uint32_t> tracks;
    std::set<int64_t> devicesWithSteps; // a Steps line came with the trace (an export's)
    std::set<int64_t> devicesWithWork;  // a stream with kernels, copies or memsets
    for (const auto& [k, flags] : lineFlags)
        if (k.kind == 0) devicesWithWork.insert(k.device);
    for (const auto& [k, flags] : lineFlags) {
        const uint32_t plane = planes[k.device];
        if (k.kind == 0) {
            const std::string kinds = streamFlagsName(flags);
            std::string name = "Stream #" + std::to_string(k.stream);
            if (!kinds.empty()) {
                std::string list = kinds;
                std::replace(list.begin(), list.end(), '+', ',');
                name += "(" + list + ")";
            }
            tracks[k] = b_.addTrack(plane, k.stream, name);
        } else if (k.kind == 3) {
            const auto name = threadNames_.find({k.device, k.stream});
            tracks[k] = b_.addTrack(plane, k.stream,
                                    name != threadNames_.end()
                                        ? name->second
                                        : "derived line " + std::to_string(k.stream));
            if (name != threadNames_.end() && name->second == "Steps")
                devicesWithSteps.insert(k.device);
        } else {
            const int64_t id = (k.kind == 1 ? kGpuAnnotationLineBase : kSyncLineBase) +
                               ((k.stream % 80) + 80) % 80;
            tracks[k] = b_.addTrack(plane, id,
                                    (k.kind == 1 ? "GPU annotations, stream " : "Syncs, stream ") +
                                        std::to_string(k.stream));
        }
    }
    // Metadata per (plane, name).
    // (A direct-mapped cache in front of the map: kernel names repeat.)
    std::unordered_map<uint64_t, uint32_t> meta;
    std::vector<std::pair<uint64_t, uint32_t>> metaCache(1024, {~uint64_t(0), 0});
    auto metadataOf = [&](uint32_t plane, StringId name, StringId cat) {
        const uint64_t k = uint64_t(plane) << 32 | name;
        auto& slot = metaCache[(k ^ (k >> 29)) & 1023];
        if (slot.first == k) return slot.second;
        auto it = meta.find(k);
        if (it == meta.end()) {
            const uint32_t m = b_.addMetadata(plane, int64_t(name), b_.strings().get(name), {});
            if (cat) b_.addMetadataStat(m, StatValue{catKey_, StatType::Str, cat});
            it = meta.emplace(k, m).first;
        }
        slot = {k, it->second};
        return it->second;
    };
    Role role;
    const uint32_t kernelDetailsKey = key("kernel_details", &role);
    const uint32_t memcpyDetailsKey = key("memcpy_details", &role);
    const uint32_t tfOpKey = key("tf_op", &role);
    const uint32_t inputTypesKey = b_.statKey(b_.intern("op_input_types"));
    b_.reserveEvents(b_.eventCount() + deviceEvents_.size() + steps_.size() * planes.size());
    lastLine = {0, 0, -1};
    uint32_t lastTrack = 0, lastPlane = 0;
    for (const DeviceEvent& d : deviceEvents_) {
        const int lineKind = lineKindOf(d.kind);
        const LineKey line{d.device, d.stream, lineKind};
        if (lastLine.kind < 0 || line < lastLine || lastLine < line) {
            lastTrack = tracks[line];
            lastPlane = planes[d.device];
            lastLine = line;
        }
        b_.addEvent(lastTrack, d.start, d.duration, metadataOf(lastPlane, d.name, d.cat));
        stats_.clear();
        for (uint32_t i = d.argBegin; i < d.argEnd; ++i) stats_.push_back(deviceArgs_[i]);
        if (d.hasDetails)
            stats_.push_back({d.details,
                              d.kind == Kind::Kernel ? kernelDetailsKey : memcpyDetailsKey,
                              StatType::Str});
        if (d.hasCorrelation && !d.hasTfOp && lineKind == 0) {
            if (const LaunchOp* op = opOfLaunch(d.correlation)) {
                stats_.push_back({op->op, tfOpKey, StatType::Str});
                if (op->inputTypes)
                    stats_.push_back({op->inputTypes, inputTypesKey, StatType::Str});
            }
        }
        b_.addEventStats(stats_.data(), stats_.size());
    }
    std::vector<DeviceEvent>().swap(deviceEvents_);
    deviceArgs_.clear();
    std::vector<LaunchOp>().swap(launchOps_);
    // Steps: XProf keeps a "Steps" line on each device plane; PyTorch marks steps on the host
    // with ProfilerStep#N ranges, which are copied there.
    if (!steps_.empty()) {
        const uint32_t stepNumKey = b_.statKey(b_.intern("step_num"));
        for (const auto& [device, plane] : planes) {
            // Only devices that ran something get a Steps line (those listed in deviceProperties
            // alone do not), unless the trace brought its own.
            if (devicesWithSteps.count(device) || !devicesWithWork.count(device)) continue;
            const uint32_t track = b_.addTrack(plane, kStepsLineId, "Steps");
            for (const Step& s : steps_) {
                b_.addEvent(track, s.start, s.end - s.start, metadataOf(plane, s.name, 0));
                if (s.number >= 0) b_.addEventStat(stepNumKey, StatType::Int64, uint64_t(s.number));
            }
        }
    }
}

// The device "Steps" lines: the ProfilerStep#N ranges moved to the device work their launches
// caused, as the PyTorch TensorBoard plugin does (event_parser.py update_device_steps; see
// extendStepsToDeviceWork): kernels run after their launch, so the host range would give much
// of step N's device time to step N+1. Trailing steps whose device work was not captured are
// dropped from these lines; the host ranges stay as recorded.
void Importer::extendSteps() {
    if (steps_.empty()) return;
    std::stable_sort(steps_.begin(), steps_.end(),
                     [](const Step& a, const Step& b) { return a.start < b.start; });
    // Device work (kernels, copies, memsets) by correlation id.
    std::vector<TorchRange> work;
    std::vector<std::pair<uint64_t, uint32_t>> byCorrelation;
    for (const DeviceEvent& d : deviceEvents_) {
        if (lineKindOf(d.kind) != 0) continue;
        if (d.hasCorrelation) byCorrelation.push_back({d.correlation, uint32_t(work.size())});
        work.push_back({d.start, d.start + d.duration});
    }
    if (!std::is_sorted(byCorrelation.begin(), byCorrelation.end())) // (most often they are)
        std::sort(byCorrelation.begin(), byCorrelation.end());
    std::vector<uint32_t> launchWork(byCorrelation.size());
    for (size_t i = 0; i < byCorrelation.size(); ++i) launchWork[i] = byCorrelation[i].second;
    std::vector<TorchLaunch> launches;
    launches.reserve(stepLaunches_.size());
    for (const StepLaunch& l : stepLaunches_) {
        const auto lo = std::lower_bound(byCorrelation.begin(), byCorrelation.end(),
                                         std::make_pair(l.correlation, uint32_t(0)));
        auto hi = lo;
        while (hi != byCorrelation.end() && hi->first == l.correlation) ++hi;
        launches.push_back({l.start, l.end, uint32_t(lo - byCorrelation.begin()),
                            uint32_t(hi - byCorrelation.begin())});
    }
    std::vector<StepLaunch>().swap(stepLaunches_);
    std::vector<TorchRange> ranges;
    for (const Step& s : steps_) ranges.push_back({s.start, s.end});
    const size_t keep = extendStepsToDeviceWork(ranges, std::move(launches), launchWork, work);
    steps_.resize(keep);
    for (size_t i = 0; i < keep; ++i) {
        steps_[i].start = ranges[i].start;
        steps_[i].end = ranges[i].end;
    }
}

// [memory] instants as the memory profile reads allocator events (see MemoryProfile.h): one
// allocator per device ("GPU_<id>" for CUDA/HIP, "CPU"), bytes_allocated = "Total Allocated"
// (or, in 2021 traces that lack it, the running sum of "Bytes" in time order),
// bytes_available = "Total Reserved" - "Total Allocated", allocation_bytes = |"Bytes"|. An
// allocator whose "Total Reserved" is never above 0 records no reserved memory (PyTorch writes 0
// for its CPU allocator, which caches nothing): its events get no bytes_available, since
// 0 - allocated would read as a negative (impossible) free size.
void Importer::finishMemory() {
    if (memory_.empty()) return;
    std::stable_sort(memory_.begin(), memory_.end(),
                     [](const MemoryRecord& a, const MemoryRecord& b) {
                         return a.start != b.start ? a.start < b.start : a.order < b.order;
                     });
    std::set<std::pair<int64_t, int64_t>> recordsReserved; // (device type, id)
    for (const MemoryRecord& m : memory_)
        if (m.hasTotalReserved && m.totalReserved > 0)
            recordsReserved.insert({m.deviceType, m.deviceId});
    const uint32_t allocatorKey = b_.statKey(b_.intern("allocator_name"));
    const uint32_t allocatedKey = b_.statKey(b_.intern("bytes_allocated"));
    const uint32_t availableKey = b_.statKey(b_.intern("bytes_available"));
    const uint32_t sizeKey = b_.statKey(b_.intern("allocation_bytes"));
    const uint32_t addrKey = b_.statKey(b_.intern("addr"));
    Role role;
    const uint32_t tfOpKey = key("tf_op", &role);
    std::map<std::pair<int64_t, int64_t>, int64_t> running;
    std::unordered_map<uint64_t, uint32_t> meta;
    for (const MemoryRecord& m : memory_) {
        const uint32_t plane = threads_[m.track].plane;
        const bool free = m.bytes < 0;
        const StringId name = b_.intern(free ? "MemoryDeallocation" : "MemoryAllocation");
        const uint64_t mk = uint64_t(plane) << 32 | name;
        auto it = meta.find(mk);
        if (it == meta.end())
            it = meta.emplace(mk,
                              b_.addMetadata(plane, -1 - int64_t(free), b_.strings().get(name), {}))
                     .first;
        b_.addEvent(threads_[m.track].track, m.start, 0, it->second);
        std::string allocator;
        if (m.deviceType == 0)
            allocator = "CPU";
        else if (m.deviceType == 1)
            allocator = "GPU_" + std::to_string(m.deviceId);
        else
            allocator =
                "device_type_" + std::to_string(m.deviceType) + "_" + std::to_string(m.deviceId);
        b_.addEventStat(allocatorKey, StatType::Str, b_.intern(allocator));
        int64_t& sum = running[{m.deviceType, m.deviceId}];
        sum += m.bytes;
        const int64_t allocated = m.hasTotalAllocated ? m.totalAllocated : sum;
        b_.addEventStat(allocatedKey, StatType::Int64, uint64_t(allocated));
        if (m.hasTotalAllocated && m.hasTotalReserved &&
            recordsReserved.count({m.deviceType, m.deviceId}))
            b_.addEventStat(availableKey, StatType::Int64,
                            uint64_t(m.totalReserved - m.totalAllocated));
        b_.addEventStat(sizeKey, StatType::Int64, uint64_t(m.bytes < 0 ? -m.bytes : m.bytes));
        if (m.hasAddr) b_.addEventStat(addrKey, StatType::Uint64, m.addr);
        if (m.op) b_.addEventStat(tfOpKey, StatType::Str, m.op);
    }
    std::vector<MemoryRecord>().swap(memory_);
}

std::string Importer::skippedSummary() const {
    std::string text;
    for (const auto& [reason, s] : skippedEvents_)
        text += "; " + std::to_string(s.count) + " events skipped: " + reason + " (first at byte " +
                std::to_string(s.firstAt) + ")";
    return text;
}

size_t Importer::skipSpace(size_t offset) const {
    while (offset < size_ && isSpace(json_[offset])) ++offset;
    return offset;
}

// An array or object value's text, which must end before the window's cut: simdjson closes a
// value that the cut divided with the window's own ']' (it counts brackets of either kind), and
// its text is not the value's. The event is then read again from the next window.
std::string_view Importer::whole(std::string_view raw) const {
    if (cut_ && raw.data() + raw.size() > cut_)
        throw simdjson::simdjson_error(simdjson::TAPE_ERROR);
    return raw;
}

std::optional<size_t> Importer::offsetOf(const char* at) const {
    if (!at) return std::nullopt;
    for (size_t i = 0; i < pieceCount_; ++i) {
        const Piece& p = pieces_[i];
        if (at >= p.begin && at <= p.begin + p.size) return p.offset + size_t(at - p.begin);
    }
    if (at >= json_ && at <= json_ + size_) return size_t(at - json_);
    return std::nullopt;
}

// The whole text as one document: in place where it is padded as simdjson needs, else a copy.
void Importer::readWhole() {
    pieceCount_ = 0;
    if (padded_) return parseDocument(json_, size_, size_ + simdjson::SIMDJSON_PADDING);
    std::vector<char> copy(size_ + simdjson::SIMDJSON_PADDING, 0);
    std::memcpy(copy.data(), json_, size_);
    pieces_[0] = {copy.data(), size_, 0};
    pieceCount_ = 1;
    parseDocument(copy.data(), size_, copy.size());
}

void Importer::parseDocument(const char* text, size_t size, size_t capacity) {
    cut_ = nullptr;
    od::parser parser;
    od::document doc;
    if (const auto error = parser.iterate(text, size, capacity).get(doc))
        throw ParseFailure{error, std::nullopt};
    try {
        document(doc);
        // simdjson does not check that the root value closed: a document cut just after an
        // event's } reads as complete, and so would one with something after it.
        const char* left = nullptr;
        if (doc.current_location().get(left) == simdjson::SUCCESS) {
            const JsonShape shape = jsonShape(std::string_view(json_, size_));
            if (shape.rootEnd != std::string_view::npos)
                fail("unexpected content after the JSON at byte " + std::to_string(shape.rootEnd) +
                     " (the trace's JSON ends there)");
            fail("the JSON ends early at byte " + std::to_string(size_) +
                 ", inside an unclosed array or object; is the file truncated?");
        }
    } catch (const simdjson::simdjson_error& e) {
        const char* at = nullptr;
        std::optional<size_t> offset;
        if (doc.current_location().get(at) == simdjson::SUCCESS) offset = offsetOf(at);
        throw ParseFailure{e.error(), offset};
    }
}

// Reading traceEvents a window at a time keeps simdjson's index of the text (4 bytes for each
// bracket, comma, colon and value: about the size of the text itself) small and in the cache,
// instead of one index of the whole file in fresh memory (README, "Kineto import speed"). The
// root object's other fields are read as two small documents, those before traceEvents first
// and those after it last, so that everything is read in the order of the text, as when it is
// read whole. False, having read nothing, where the events cannot be found by a scan (the
// whole text is then read as one document).
bool Importer::readByWindows(size_t windowBytes) {
    const size_t first = skipSpace(0);
    if (first == size_) return false;
    // Room for what the text likely holds (Kineto writes 150 to 400 bytes per event, a kernel
    // about 500): the columns then grow without copies into fresh memory, and room that is not
    // used is never touched.
    b_.reserveEvents(b_.eventCount() + size_ / 128);
    b_.reserveStatBytes(size_ / 16);
    deviceEvents_.reserve(size_ / 1024);
    if (json_[first] == '[') {
        const size_t close = readEvents(first, windowBytes);
        if (skipSpace(close + 1) != size_)
            fail("unexpected content after the JSON at byte " + std::to_string(close + 1) +
                 " (the trace's JSON ends there)");
        return true;
    }
    if (json_[first] != '{') return false;
    const size_t open = eventsArrayOpen();
    if (open == size_) return false;
    // The text up to traceEvents' '[', closed by "]}".
    std::vector<char> head(open + 3 + simdjson::SIMDJSON_PADDING, 0);
    std::memcpy(head.data(), json_, open + 1);
    head[open + 1] = ']';
    head[open + 2] = '}';
    if (!isRootEvents(head, open)) return false;
    pieces_[0] = {head.data(), open + 1, 0};
    pieceCount_ = 1;
    parseDocument(head.data(), open + 3, head.size());
    std::vector<char>().swap(head);
    const size_t close = readEvents(open, windowBytes);
    // The text from traceEvents' ']' on, opened by {"traceEvents":[.
    static constexpr std::string_view kOpen = "{\"traceEvents\":[";
    const size_t tail = size_ - close;
    std::vector<char> rest(kOpen.size() + tail + simdjson::SIMDJSON_PADDING, 0);
    std::memcpy(rest.data(), kOpen.data(), kOpen.size());
    std::memcpy(rest.data() + kOpen.size(), json_ + close, tail);
    pieces_[0] = {rest.data() + kOpen.size(), tail, close};
    pieceCount_ = 1;
    parseDocument(rest.data(), kOpen.size() + tail, rest.size());
    return true;
}

// The '[' of the first "traceEvents" key in the text (size_ if none), which isRootEvents()
// checks.
size_t Importer::eventsArrayOpen() const {
    static constexpr std::string_view kKey = "\"traceEvents\"";
    const size_t key = std::string_view(json_, size_).find(kKey);
    if (key == std::string_view::npos) return size_;
    const size_t colon = skipSpace(key + kKey.size());
    if (colon == size_ || json_[colon] != ':') return size_;
    const size_t open = skipSpace(colon + 1);
    if (open == size_ || json_[open] != '[') return size_;
    return open;
}

// Whether `head` (the text up to the '[' at `open`, closed by "]}") is a root object whose only
// "traceEvents" is the array at `open`: one in a string or a nested object, or a second one, is
// never taken for it. Reads nothing into the profile.
bool Importer::isRootEvents(const std::vector<char>& head, size_t open) const {
    try {
        od::parser parser;
        od::document doc = parser.iterate(head.data(), open + 3, head.size());
        bool found = false;
        for (auto&& result : doc.get_object()) {
            if (result.error()) return false;
            od::field& f = result.value_unsafe();
            bool escaped;
            const std::string_view k = rawKey(f, escaped);
            od::value& v = f.value();
            if (escaped || k != "traceEvents") continue;
            if (found || v.current_location().value() != head.data() + open) return false;
            found = true;
        }
        const char* left = nullptr;
        return found && doc.current_location().get(left) != simdjson::SUCCESS;
    } catch (const simdjson::simdjson_error&) {
        return false;
    }
}

// Reads the events of the array whose '[' is at `open`; returns where its ']' is. A window is
// cut after a '}' that a ',' follows, where an event may end; where that '}' closes something
// inside an event, that event does not end in the window: it is read again from the next one.
size_t Importer::readEvents(size_t open, size_t windowBytes) {
    od::parser parser;
    std::vector<char> window;
    size_t pos = skipSpace(open + 1);
    if (pos < size_ && json_[pos] == ']') return pos;
    size_t width = windowBytes;
    size_t limit = pos + width; // the cut is looked for before this
    for (;;) {
        const bool rest = size_ - pos <= width;
        size_t len = size_ - pos;
        if (!rest) {
            size_t comma = std::min(limit, size_);
            len = 0;
            while (comma > pos && len == 0) {
                --comma;
                if (json_[comma] != ',') continue;
                size_t brace = comma;
                while (brace > pos && isSpace(json_[brace - 1])) --brace;
                if (brace > pos && json_[brace - 1] == '}') len = brace - pos;
            }
            if (len == 0) {
                width *= 2;
                limit = pos + width;
                continue;
            }
        }
        const WindowEnd end = readWindow(parser, window, pos, len, rest);
        if (end.closedAt != std::string_view::npos) return end.closedAt;
        if (end.resumeAt != pos) {
            pos = end.resumeAt;
            width = windowBytes;
            limit = pos + width;
        } else if (end.insideString) {
            // An earlier cut: the last one outside the window's strings, found in one pass
            // (trying each '},' before this one would parse the window once per '},' that a
            // long string holds).
            const size_t comma = lastCommaOutsideStrings(pos, len);
            if (comma != std::string_view::npos) {
                limit = comma + 1;
            } else {
                width *= 2; // one event's string runs past the cut: a larger window
                limit = pos + width;
            }
        } else {
            width *= 2; // the window holds no whole event: a larger one
            limit = pos + width;
        }
    }
}

// The last ',' in json_[pos, pos + len) that follows a '}' outside any string, reading from
// `pos` (outside a string: an event's start); npos where there is none.
size_t Importer::lastCommaOutsideStrings(size_t pos, size_t len) const {
    size_t comma = std::string_view::npos;
    char last = 0; // the last character outside strings that is not a space
    scanOutsideStrings(std::string_view(json_ + pos, len), [&](size_t i, char c) {
        if (c == ',' && last == '}') comma = pos + i;
        if (!isSpace(c)) last = c;
        return true;
    });
    return comma;
}

// Reads the events in json_[pos, pos + len), an event's start to a cut (or the rest of the text:
// `rest`), as the array "[" text "]". Errors in a window that `rest` is not are the cut's doing
// until shown otherwise: the events before the one that failed are kept, and reading resumes at
// it. In the rest of the text, errors are the text's own.
Importer::WindowEnd Importer::readWindow(od::parser& parser, std::vector<char>& window, size_t pos,
                                         size_t len, bool rest) {
    if (window.size() < len + 2 + simdjson::SIMDJSON_PADDING)
        window.resize(len + 2 + simdjson::SIMDJSON_PADDING);
    window[0] = '[';
    std::memcpy(window.data() + 1, json_ + pos, len);
    window[len + 1] = ']';
    std::memset(window.data() + len + 2, 0, simdjson::SIMDJSON_PADDING);
    pieces_[0] = {window.data(), len + 2, pos - 1};
    pieceCount_ = 1;
    cut_ = rest ? nullptr : window.data() + len + 1;
    od::document doc;
    if (const auto error = parser.iterate(window.data(), len + 2, window.size()).get(doc)) {
        if (rest) throw ParseFailure{error, std::nullopt};
        return {std::string_view::npos, pos, error == simdjson::UNCLOSED_STRING};
    }
    const char* elementAt = nullptr;
    bool whole = false; // the element at elementAt was read to its end
    uint64_t countBefore = eventCount_;
    try {
        for (auto&& e : doc.get_array()) {
            if (e.error()) throw simdjson::simdjson_error(e.error());
            od::value& v = e.value_unsafe(); // a reference: see event()
            elementAt = v.current_location().value_unsafe();
            whole = false;
            countBefore = eventCount_;
            element(v, elementAt);
            // A skipped event was left where the skip happened: not known to be whole.
            whole = !pendingSkip_;
        }
        commitSkipped();
    } catch (const simdjson::simdjson_error& e) {
        if (rest || whole) {
            const char* at = nullptr;
            std::optional<size_t> offset;
            if (doc.current_location().get(at) == simdjson::SUCCESS) offset = offsetOf(at);
            throw ParseFailure{e.error(), offset};
        }
        pendingSkip_.reset();
        eventCount_ = countBefore;
        return {std::string_view::npos, elementAt ? *offsetOf(elementAt) : pos, false};
    }
    const char* next = nullptr;
    if (doc.current_location().get(next) != simdjson::SUCCESS) {
        // The array ended at the window's own ']'.
        if (rest) throw ParseFailure{simdjson::INCOMPLETE_ARRAY_OR_OBJECT, std::nullopt};
        // The cut was before a ','; a ']' after it is a trailing comma, which JSON does not
        // allow (and the whole text read as one document is refused there).
        const size_t resume = skipSpace(skipSpace(pos + len) + 1);
        if (resume < size_ && json_[resume] == ']')
            throw ParseFailure{simdjson::TAPE_ERROR, resume};
        return {std::string_view::npos, resume, false};
    }
    // The text's ']' ended it: the last bracket before what follows.
    while (next > window.data() && isSpace(next[-1])) --next;
    return {*offsetOf(next - 1), std::string_view::npos, false};
}

std::string Importer::parseErrorMessage(const ParseFailure& f) const {
    std::string message;
    switch (f.code) {
    case simdjson::INCORRECT_TYPE:
        message = "a value has the wrong type";
        break;
    case simdjson::TAPE_ERROR:
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
    case simdjson::UNCLOSED_STRING: {
        const JsonShape shape = jsonShape(std::string_view(json_, size_));
        if (shape.rootEnd == std::string_view::npos)
            // The root value never closes: the file ends early, where it ends.
            return "the JSON ends early at byte " + std::to_string(size_) + ", inside " +
                   (shape.inString ? "a string" : "an unclosed array or object") +
                   "; is the file truncated?";
        message = std::string("the JSON is malformed (") + simdjson::error_message(f.code) + ")";
        break;
    }
    default:
        message = std::string("invalid JSON: ") + simdjson::error_message(f.code);
    }
    if (f.offset)
        message += " at byte " + std::to_string(*f.offset);
    else
        message += " (near the end of the file)";
    return message;
}

std::string Importer::run(size_t windowBytes) {
    if (size_ == 0) return "the file is empty";
    firstEvent_ = b_.eventCount();
    catKey_ = b_.intern("category");
    if (size_ > simdjson::SIMDJSON_MAXSIZE_BYTES)
        return "the JSON is " + std::to_string(size_) +
               " bytes, more than the 4 GiB one document may have";
    // The Trace Event Format's array form may lack its closing ] (a program that crashed while
    // writing): the events before it are read, with a warning. Anything else that does not end
    // as it began is reported where it ends.
    std::string closedWarning;
    {
        const std::string_view text = trimmed(std::string_view(json_, size_));
        const char open = text.empty() ? 0 : text.front();
        if ((open == '[' && text.back() != ']') || (open == '{' && text.back() != '}')) {
            const JsonShape shape = jsonShape(std::string_view(json_, size_));
            if (shape.rootEnd != std::string_view::npos)
                return "unexpected content after the JSON at byte " +
                       std::to_string(shape.rootEnd) + " (the trace's JSON ends there)";
            const std::string_view rest =
                trimmed(std::string_view(json_, size_).substr(shape.lastElementEnd));
            const bool onlyBracketMissing = open == '[' && shape.lastElementEnd > 0 &&
                                            !shape.inString && (rest.empty() || rest == ",");
            if (!onlyBracketMissing)
                return "the JSON ends early at byte " + std::to_string(size_) + ", inside " +
                       (shape.inString ? "a string" : "an unclosed array or object") +
                       "; is the file truncated?";
            closed_.assign(json_, json_ + shape.lastElementEnd);
            closed_.push_back(']');
            closedWarning = "the trace's closing ] is missing (the Trace Event Format allows "
                            "this); the events up to byte " +
                            std::to_string(shape.lastElementEnd) + " are shown";
            size_ = closed_.size();
            closed_.resize(size_ + simdjson::SIMDJSON_PADDING, 0);
            json_ = closed_.data();
            padded_ = true;
        }
    }
    std::string message;
    try {
        if (windowBytes == 0 || !readByWindows(windowBytes)) readWhole();
    } catch (const ImportError& e) {
        message = e.message;
        if (message == "cancelled") return message;
        if (const std::optional<size_t> at = offsetOf(e.at))
            message += " at byte " + std::to_string(*at);
    } catch (const ParseFailure& f) {
        message = parseErrorMessage(f);
    } catch (const std::bad_alloc&) {
        message = "out of memory while reading the trace";
    }
    pieceCount_ = 0;
    if (!message.empty()) return message;
    for (HostThread& t : threads_) {
        for (HostThread::Open& o : t.open) {
            // A B without its E lasts to the trace's last timestamp, as chrome://tracing and
            // Perfetto show a slice that did not end.
            addHostEvent(uint32_t(&t - threads_.data()), o.start,
                         std::max<int64_t>(0, lastPs_ - o.start), o.name, o.cat, o.args);
        }
        if (!t.open.empty())
            b_.host(host_).warnings.push_back(std::to_string(t.open.size()) +
                                              " \"B\" events have no matching \"E\"; shown as "
                                              "lasting to the trace's end");
        t.open.clear();
    }
    finishHostNames();
    finishDevices();
    finishMemory();
    if (!b_.error().empty()) return b_.error();
    if (b_.eventCount() == firstEvent_)
        return "the trace has no events to show (traceEvents holds no \"X\", \"B\"/\"E\" or "
               "instant events)" +
               skippedSummary();
    Host& host = b_.host(host_);
    if (!closedWarning.empty()) host.warnings.push_back(closedWarning);
    for (const auto& [reason, s] : skippedEvents_)
        host.warnings.push_back(std::to_string(s.count) + " events skipped: " + reason +
                                " (first at byte " + std::to_string(s.firstAt) + ")");
    if (unmatchedEnds_)
        host.warnings.push_back(std::to_string(unmatchedEnds_) +
                                " \"E\" events have no matching \"B\" and are ignored");
    if (flowsWithoutId_)
        host.warnings.push_back(std::to_string(flowsWithoutId_) +
                                " flow events have no \"id\" or \"id2\" and are ignored");
    for (const auto& [ph, n] : skippedPhases_)
        host.warnings.push_back(std::to_string(n) + " events of phase \"" + ph +
                                "\" are not shown (not supported)");
    // Time base: the origin as an absolute time. Kineto since 2022 writes ts relative to
    // baseTimeNanoseconds; older traces (and most Chrome JSON) write ts in µs since the epoch.
    int64_t originNs;
    if (__builtin_mul_overflow(originUs_, int64_t(1000), &originNs) ||
        __builtin_add_overflow(originNs, baseTimeNs_.value_or(0), &originNs))
        return "the trace's time base is out of range";
    int64_t deltaPs = 0;
    if (!b_.hasTimeBase()) {
        b_.setTimeBase(originNs);
    } else {
        int64_t deltaNs;
        if (__builtin_sub_overflow(originNs, b_.timeBaseNs(), &deltaNs) ||
            __builtin_mul_overflow(deltaNs, int64_t(1000), &deltaPs))
            return "the trace's times are too far from the other hosts' to show them together";
        if (!b_.shiftEvents(firstEvent_, deltaPs))
            return "the trace's times are too far from the other hosts' to show them together";
    }
    addFlowPoints(deltaPs);
    (void)flowEvents_;
    return {};
}

} // namespace

bool looksLikeChromeTrace(std::span<const uint8_t> bytes) {
    if (isGzip(bytes)) return true;
    for (uint8_t c : bytes.first(std::min<size_t>(bytes.size(), 64))) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        return c == '{' || c == '[';
    }
    return false;
}

namespace {

std::string importAll(std::span<const uint8_t> bytes, ProfileBuilder& builder, uint32_t host,
                      const Progress* progress, size_t readableAfter, size_t windowBytes) {
    GunzipBuffer buffer;
    const char* json = reinterpret_cast<const char*>(bytes.data());
    size_t size = bytes.size();
    bool fromGzip = false;
    if (isGzip(bytes)) {
        const std::string error = gunzip(bytes, buffer, size, simdjson::SIMDJSON_PADDING, progress,
                                         simdjson::SIMDJSON_MAXSIZE_BYTES);
        if (!error.empty()) return error;
        json = reinterpret_cast<const char*>(buffer.data());
        fromGzip = true;
        if (size == 0) return "the file is empty once decompressed";
    }
    // simdjson reads up to SIMDJSON_PADDING bytes past the end of what it parses in place.
    const bool padded = fromGzip || readableAfter >= simdjson::SIMDJSON_PADDING;
    Importer importer(json, size, padded, builder, host, progress);
    std::string error = importer.run(windowBytes);
    if (!error.empty() && fromGzip && error.find(" at byte ") != std::string::npos)
        error += " of the decompressed JSON";
    return error;
}

} // namespace

std::string importChromeTrace(std::span<const uint8_t> bytes, ProfileBuilder& builder,
                              uint32_t host, const Progress* progress, size_t readableAfter,
                              size_t windowBytes) {
    if (bytes.empty()) return "the file is empty";
    try {
        return importAll(bytes, builder, host, progress, readableAfter, windowBytes);
    } catch (const std::bad_alloc&) {
        return "out of memory while reading the trace (" + std::to_string(bytes.size()) +
               " bytes on disk)";
    } catch (const std::length_error&) {
        return "out of memory while reading the trace (" + std::to_string(bytes.size()) +
               " bytes on disk)";
    }
}

} // namespace stepscope
