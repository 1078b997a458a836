#include "capture/RemoteCapture.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <thread>

#include <unistd.h>

#include "capture/profiler_service.grpc.pb.h"
#include "model/AtomicFile.h"
#include "model/LogDir.h"

namespace stepscope::capture {

namespace fs = std::filesystem;
using SteadyClock = std::chrono::steady_clock;
using SystemClock = std::chrono::system_clock;
using std::chrono::milliseconds;

namespace {

// TSL's kMaxEvents and the tools its PopulateProfileRequest asks for (only TPU servers read the
// tool list; "xplane.pb" is the one OSS servers answer to).
constexpr uint64_t kMaxEvents = 1000000;
constexpr const char* kRequestedTools[] = {
    "trace_viewer",   "op_profile",    "input_pipeline", "kernel_stats",     "memory_viewer",
    "memory_profile", "overview_page", "pod_viewer",     "tensorflow_stats", "xplane.pb"};
// TSL's kMinSessionGraceTime.
constexpr uint64_t kMinDeadlineMs = 60000;
// How often a waiting thread looks at the cancel flag and the progress is reported.
constexpr milliseconds kPollInterval{50};

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return std::string(s);
}

// host:port as TSL's ValidateHostPortPair accepts it, plus [IPv6]:port.
std::string checkAddress(const std::string& address) {
    const std::string bad = "\"" + address + "\" is not host:port";
    std::string_view host, port;
    if (!address.empty() && address.front() == '[') {
        const size_t close = address.find(']');
        if (close == std::string::npos || close + 1 >= address.size() || address[close + 1] != ':')
            return bad;
        host = std::string_view(address).substr(1, close - 1);
        port = std::string_view(address).substr(close + 2);
    } else {
        const size_t colon = address.find(':');
        if (colon == std::string::npos) return bad + " (no port)";
        if (address.find(':', colon + 1) != std::string::npos) return bad;
        host = std::string_view(address).substr(0, colon);
        port = std::string_view(address).substr(colon + 1);
    }
    if (host.empty()) return bad + " (no host)";
    if (host.find('/') != std::string_view::npos) return bad + " (a host has no '/')";
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 ||
        value > 65535)
        return bad + " (the port must be a number from 1 to 65535)";
    return {};
}

// The file-name form of a host as TSL writes it: ':' is replaced by '_'.
std::string fileHost(std::string host) {
    std::replace(host.begin(), host.end(), ':', '_');
    return host;
}

std::string seconds(uint64_t ms) {
    char text[32];
    std::snprintf(text, sizeof text, ms % 1000 ? "%.1f s" : "%.0f s", double(ms) / 1000.0);
    return text;
}

tensorflow::ProfileRequest buildRequest(const RemoteCaptureOptions& o, const std::string& runDir,
                                        const std::string& run, const std::string& address) {
    tensorflow::ProfileRequest request;
    request.set_duration_ms(o.durationMs);
    request.set_max_events(kMaxEvents);
    for (const char* tool : kRequestedTools) request.add_tools(tool);
    request.set_repository_root(fs::path(runDir).parent_path().string());
    request.set_session_id(run);
    request.set_host_name(address);
    tensorflow::ProfileOptions* opts = request.mutable_opts();
    // As tsl::ProfilerSession::DefaultOptions() with TensorBoard's capture settings.
    opts->set_version(1);
    opts->set_device_type(tensorflow::ProfileOptions::UNSPECIFIED);
    opts->set_include_dataset_ops(true);
    opts->set_enable_hlo_proto(true);
    opts->set_host_tracer_level(o.hostTracerLevel);
    opts->set_device_tracer_level(o.deviceTracerLevel);
    opts->set_python_tracer_level(o.pythonTracerLevel);
    opts->set_duration_ms(o.durationMs);
    opts->set_repository_path(o.logDir);
    const auto start = SystemClock::now() + milliseconds(o.delayMs);
    opts->set_start_timestamp_ns(uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count()));
    return request;
}

const char* statusName(grpc::StatusCode code) {
    static constexpr const char* kNames[] = {"OK",
                                             "CANCELLED",
                                             "UNKNOWN",
                                             "INVALID_ARGUMENT",
                                             "DEADLINE_EXCEEDED",
                                             "NOT_FOUND",
                                             "ALREADY_EXISTS",
                                             "PERMISSION_DENIED",
                                             "RESOURCE_EXHAUSTED",
                                             "FAILED_PRECONDITION",
                                             "ABORTED",
                                             "OUT_OF_RANGE",
                                             "UNIMPLEMENTED",
                                             "INTERNAL",
                                             "UNAVAILABLE",
                                             "DATA_LOSS",
                                             "UNAUTHENTICATED"};
    const auto i = size_t(code);
    return i < std::size(kNames) ? kNames[i] : "an unknown status";
}

// The failure of a call in words, from its gRPC status.
void describeFailure(const grpc::Status& status, const std::string& address, uint64_t deadlineMs,
                     ServiceOutcome& out) {
    const std::string detail = status.error_message();
    const auto has = [&detail](const char* s) { return detail.find(s) != std::string::npos; };
    out.state = ServiceOutcome::State::Failed;
    switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
        if (has("Connection refused"))
            out.message = address + ": connection refused (nothing listens on that port)";
        else if (has("DNS resolution failed") || has("name resolution") || has("Name or service"))
            out.message = address + ": the host name cannot be resolved";
        else if (has("http1") || has("HTTP/1") || has("parsing HTTP/2"))
            out.message = address + " is not a profiler service: it does not speak gRPC";
        else
            out.message = address + " is unreachable";
        break;
    case grpc::StatusCode::UNIMPLEMENTED:
        out.message = address + " is not a profiler service (it does not implement "
                                "tensorflow.ProfilerService/Profile)";
        break;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
        out.message =
            address + " did not answer within " + seconds(deadlineMs) + " (deadline exceeded)";
        break;
    case grpc::StatusCode::ALREADY_EXISTS:
        out.message = address + ": a profiling session is already running there";
        out.retryable = true;
        break;
    case grpc::StatusCode::INTERNAL:
        if (has("grpc-status") || has("protocol") || has("parse") || has("Received RST"))
            out.message = address + " is not a profiler service (its answer is not one)";
        else
            out.message = address + ": the profiler failed";
        break;
    default:
        out.message = address + " failed (gRPC " + statusName(status.error_code()) + ")";
    }
    if (!detail.empty()) out.message += " — " + detail;
}

// Writes tool data that came back inline, named as TSL's SaveProfile names it.
void writeToolData(const tensorflow::ProfileResponse& response, const std::string& runDir,
                   const std::string& address, ServiceOutcome& out) {
    for (const tensorflow::ProfileToolData& tool : response.tool_data()) {
        const std::string& name = tool.name();
        // TSL keeps per-host intermediates out of the repository; so do we.
        if (name.ends_with("tf_stats_helper_result")) continue;
        // A name is a file name, never a path a server could use to write elsewhere.
        if (name.empty() || name.find('/') != std::string::npos ||
            name.find('\\') != std::string::npos || name.front() == '.') {
            out.message += (out.message.empty() ? "" : "; ") + address +
                           " sent tool data under a name that is not a file name; skipped";
            continue;
        }
        std::error_code ec;
        fs::create_directories(runDir, ec);
        const std::string path = (fs::path(runDir) / (fileHost(address) + "." + name)).string();
        if (const std::string error = writeFileAtomically(path, tool.data()); !error.empty()) {
            out.state = ServiceOutcome::State::Failed;
            out.message = error;
            return;
        }
        out.files.push_back(path);
    }
}

// One Profile call to one service: connect (within connectTimeoutMs), call (until the
// deadline), and look for the file it wrote. Cancelled soon after progress.cancel().
ServiceOutcome profileService(const RemoteCaptureOptions& o, const std::string& address,
                              const tensorflow::ProfileRequest& request, const std::string& runDir,
                              SystemClock::time_point deadline, const Progress& progress) {
    ServiceOutcome out;
    out.address = address;
    grpc::ChannelArguments args;
    // Inline tool data can be large; TSL lifts the limit the same way.
    args.SetMaxReceiveMessageSize(std::numeric_limits<int32_t>::max());
    const std::shared_ptr<grpc::Channel> channel =
        grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
    const std::unique_ptr<tensorflow::ProfilerService::Stub> stub =
        tensorflow::ProfilerService::NewStub(channel);

    // A host that never answers (a dropped SYN) would otherwise hold the call until the
    // deadline, a minute or more; refused and unresolvable ones fail here at once.
    const auto connectEnd = SystemClock::now() + milliseconds(o.connectTimeoutMs);
    grpc_connectivity_state state = channel->GetState(true);
    while (state != GRPC_CHANNEL_READY && state != GRPC_CHANNEL_TRANSIENT_FAILURE &&
           state != GRPC_CHANNEL_SHUTDOWN) {
        if (progress.cancelled()) {
            out.state = ServiceOutcome::State::Cancelled;
            out.message = address + ": cancelled";
            return out;
        }
        const auto now = SystemClock::now();
        if (now >= connectEnd) {
            out.message = address + " is unreachable: no answer within " +
                          seconds(o.connectTimeoutMs) +
                          " (is the address right, the job running and the port open?)";
            return out;
        }
        channel->WaitForStateChange(state, std::min(connectEnd, now + kPollInterval));
        state = channel->GetState(true);
    }

    grpc::ClientContext context;
    context.set_deadline(deadline);
    grpc::CompletionQueue queue;
    tensorflow::ProfileResponse response;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<tensorflow::ProfileResponse>> call =
        stub->AsyncProfile(&context, request, &queue);
    int finishedTag = 0;
    call->Finish(&response, &status, &finishedTag);
    bool cancelSent = false;
    for (;;) {
        void* tag = nullptr;
        bool ok = false;
        const auto next = queue.AsyncNext(&tag, &ok, SystemClock::now() + kPollInterval);
        if (next != grpc::CompletionQueue::TIMEOUT) break;
        if (!cancelSent && progress.cancelled()) {
            context.TryCancel(); // the server's ctx->IsCancelled() ends its session
            cancelSent = true;
        }
    }
    queue.Shutdown();
    void* tag = nullptr;
    bool ok = false;
    while (queue.Next(&tag, &ok)) {
    }

    const uint64_t deadlineMs = attemptDeadlineMs(o);
    if (!status.ok()) {
        if (cancelSent && status.error_code() == grpc::StatusCode::CANCELLED) {
            out.state = ServiceOutcome::State::Cancelled;
            out.message = address + ": cancelled";
        } else {
            describeFailure(status, address, deadlineMs, out);
        }
        return out;
    }
    if (response.empty_trace()) {
        out.state = ServiceOutcome::State::EmptyTrace;
        out.message = address + " collected no trace events";
        return out;
    }
    out.state = ServiceOutcome::State::Captured;
    writeToolData(response, runDir, address, out);
    if (out.state != ServiceOutcome::State::Captured) return out;
    const fs::path written = fs::path(runDir) / (fileHost(address) + ".xplane.pb");
    std::error_code ec;
    if (fs::is_regular_file(written, ec) &&
        std::find(out.files.begin(), out.files.end(), written.string()) == out.files.end())
        out.files.insert(out.files.begin(), written.string());
    if (out.files.empty()) {
        out.state = ServiceOutcome::State::Failed;
        out.message = address + " reported a trace, but no file arrived at " + written.string() +
                      ": the server writes it on its own file system, so give a log directory "
                      "that both machines share";
    }
    return out;
}

// Runs one attempt over every service in parallel and reports progress while it waits.
std::vector<ServiceOutcome> runAttempt(const RemoteCaptureOptions& o, const std::string& runDir,
                                       const std::string& run, uint32_t attempt, uint32_t attempts,
                                       const Progress& progress) {
    const size_t n = o.addresses.size();
    std::vector<ServiceOutcome> outcomes(n);
    std::mutex mutex;
    std::condition_variable done;
    size_t finished = 0;
    const auto deadline = SystemClock::now() + milliseconds(attemptDeadlineMs(o));
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const tensorflow::ProfileRequest request = buildRequest(o, runDir, run, o.addresses[i]);
        threads.emplace_back([&, i, request] {
            ServiceOutcome outcome;
            try {
                outcome = profileService(o, o.addresses[i], request, runDir, deadline, progress);
            } catch (const std::exception& e) {
                outcome.address = o.addresses[i];
                outcome.message = o.addresses[i] + ": " + e.what();
            }
            const std::lock_guard lock(mutex);
            outcomes[i] = std::move(outcome);
            ++finished;
            done.notify_all();
        });
    }
    const auto start = SteadyClock::now();
    const double span = double(std::max<uint64_t>(1, o.delayMs + o.durationMs));
    const std::string services = n == 1 ? o.addresses.front() : std::to_string(n) + " services";
    std::unique_lock lock(mutex);
    while (finished < n) {
        const double elapsed =
            double(std::chrono::duration_cast<milliseconds>(SteadyClock::now() - start).count());
        std::string stage =
            "Attempt " + std::to_string(attempt) + " of " + std::to_string(attempts) + ": ";
        if (elapsed < double(o.delayMs))
            stage += "waiting " + seconds(o.delayMs) + " before profiling " + services;
        else if (elapsed < span)
            stage += "profiling " + services;
        else
            stage += "collecting the profile from " + services;
        lock.unlock();
        progress.report(stage, std::min(0.99, elapsed / span));
        lock.lock();
        done.wait_for(lock, kPollInterval * 2, [&] { return finished == n; });
    }
    lock.unlock();
    for (std::thread& t : threads) t.join();
    return outcomes;
}

std::string joinLines(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& l : lines) out += (out.empty() ? "" : "\n") + l;
    return out;
}

} // namespace

uint64_t attemptDeadlineMs(const RemoteCaptureOptions& options) {
    if (options.deadlineMs > 0) return options.deadlineMs;
    return std::max(kMinDeadlineMs, 2 * options.durationMs) + options.delayMs;
}

std::string parseServiceAddresses(std::string_view text, std::vector<std::string>& out) {
    out.clear();
    size_t begin = 0;
    while (begin <= text.size()) {
        size_t end = text.find(',', begin);
        if (end == std::string_view::npos) end = text.size();
        std::string item = trim(text.substr(begin, end - begin));
        if (item.starts_with("grpc://")) item = item.substr(7);
        if (!item.empty()) {
            if (std::string error = checkAddress(item); !error.empty()) {
                out.clear();
                return error;
            }
            if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
        }
        begin = end + 1;
    }
    if (out.empty()) return "no service address given (host:port, several separated by commas)";
    return {};
}

std::string validateOptions(const RemoteCaptureOptions& o) {
    if (o.addresses.empty()) return "no service address given";
    for (const std::string& a : o.addresses)
        if (std::string error = checkAddress(a); !error.empty()) return error;
    if (o.logDir.empty()) return "no log directory given";
    if (o.durationMs == 0) return "the duration must be at least 1 ms";
    // The duration and delay travel as uint64 ms and become ns timestamps on the server.
    constexpr uint64_t kMaxMs = 24ull * 3600 * 1000;
    if (o.durationMs > kMaxMs) return "the duration must be at most 24 hours";
    if (o.delayMs > kMaxMs) return "the delay must be at most 24 hours";
    if (o.retries > 100) return "at most 100 retries";
    if (o.hostTracerLevel > 3) return "the host tracer level is 0 to 3";
    if (o.deviceTracerLevel > 1) return "the device tracer level is 0 or 1";
    if (o.pythonTracerLevel > 1) return "the Python tracer level is 0 or 1";
    if (o.connectTimeoutMs == 0) return "the connect timeout must be at least 1 ms";
    if (!o.runName.empty() &&
        (o.runName.find('/') != std::string::npos || o.runName == "." || o.runName == ".."))
        return "the run name \"" + o.runName + "\" is not a folder name";
    return {};
}

RemoteCaptureResult captureRemote(const RemoteCaptureOptions& o, const Progress& progress) {
    RemoteCaptureResult result;
    if (std::string error = validateOptions(o); !error.empty()) {
        result.error = error;
        return result;
    }

    // The servers create the run folder; check first that the log directory takes one.
    const fs::path root = fs::path(o.logDir) / "plugins" / "profile";
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec || !fs::is_directory(root)) {
        result.error = "cannot create " + root.string() + " (" +
                       (ec ? ec.message() : std::string("not a folder")) + ")";
        return result;
    }
    {
        const fs::path probe = root / (".stepscope-write-check-" + std::to_string(getpid()));
        std::ofstream file(probe);
        const bool writable = bool(file);
        file.close();
        fs::remove(probe, ec);
        if (!writable) {
            result.error = "the log directory is not writable: cannot write into " + root.string() +
                           " (" + std::strerror(errno) + ")";
            return result;
        }
    }
    if (o.runName.empty()) {
        const std::string stamp = localTimeRunName();
        result.runName = stamp;
        for (int i = 2; fs::exists(root / result.runName, ec); ++i)
            result.runName = stamp + "_" + std::to_string(i);
    } else {
        result.runName = o.runName;
    }
    result.runDir = (root / result.runName).string();

    const uint32_t attempts = o.retries + 1;
    std::vector<ServiceOutcome> outcomes;
    for (uint32_t attempt = 1; attempt <= attempts; ++attempt) {
        result.attempts = attempt;
        outcomes = runAttempt(o, result.runDir, result.runName, attempt, attempts, progress);
        const auto any = [&outcomes](auto pred) {
            return std::any_of(outcomes.begin(), outcomes.end(), pred);
        };
        if (any([](const ServiceOutcome& s) { return s.state == ServiceOutcome::State::Captured; }))
            break;
        if (progress.cancelled()) break;
        const bool retry = any([](const ServiceOutcome& s) {
            return s.state == ServiceOutcome::State::EmptyTrace || s.retryable;
        });
        if (!retry) break;
    }
    result.services = outcomes;

    std::vector<std::string> failures;
    for (const ServiceOutcome& s : outcomes) {
        if (s.state == ServiceOutcome::State::Captured) {
            result.files.insert(result.files.end(), s.files.begin(), s.files.end());
            if (!s.message.empty()) result.warnings.push_back(s.message);
        } else if (s.state != ServiceOutcome::State::Cancelled) {
            failures.push_back(s.state == ServiceOutcome::State::EmptyTrace
                                   ? s.message + " in " + std::to_string(result.attempts) +
                                         (result.attempts == 1 ? " attempt" : " attempts")
                                   : s.message);
        }
    }
    if (!result.files.empty()) {
        result.warnings.insert(result.warnings.end(), failures.begin(), failures.end());
        return result;
    }
    if (progress.cancelled()) {
        result.cancelled = true;
        result.error = "capture cancelled";
    } else {
        const bool allEmpty = std::all_of(outcomes.begin(), outcomes.end(), [](const auto& s) {
            return s.state == ServiceOutcome::State::EmptyTrace;
        });
        result.error = joinLines(failures);
        if (allEmpty)
            result.error += "\nNo trace events were collected. Is the program running steps "
                            "while it is profiled? Try a longer duration or more retries.";
    }
    // Leave no empty run folder behind (a server may have written an empty trace there).
    fs::remove(result.runDir, ec); // removes only an empty folder
    return result;
}

} // namespace stepscope::capture
