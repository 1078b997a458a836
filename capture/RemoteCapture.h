#pragma once

// Remote capture from running TensorFlow / JAX jobs, as TensorBoard's "Capture Profile" does it:
// a gRPC client of `tensorflow.ProfilerService/Profile` (the servers that
// `tf.profiler.experimental.server.start(port)` and `jax.profiler.start_server(port)` start).
// The request is built as TSL's capture client builds it (openxla/xla,
// xla/tsl/profiler/rpc/client/capture_profile.cc, PopulateProfileRequest and CaptureRemoteTrace;
// xla/tsl/profiler/utils/session_manager.cc for the deadline): repository_root =
// LOGDIR/plugins/profile, session_id = the run name, host_name = the service address. The server
// writes `<repository_root>/<session_id>/<host_name, ':' as '_'>.xplane.pb` itself
// (xla/tsl/profiler/rpc/profiler_service_impl.cc); a response that carries the profile inline
// (`tool_data`) is written there by this client, as TSL's SaveProfile does.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/Progress.h"

namespace stepscope::capture {

struct RemoteCaptureOptions {
    std::vector<std::string> addresses; // host:port, one per profiler service
    std::string logDir;                 // the run lands in logDir/plugins/profile/<run>/
    uint64_t durationMs = 1000;
    // TensorBoard's "number of retries": a capture in which no service collected any event is
    // tried again, up to retries + 1 attempts in all (its num_tracing_attempts).
    uint32_t retries = 3;
    uint64_t delayMs = 0; // the servers start profiling this long after the request
    uint32_t hostTracerLevel = 2;
    uint32_t deviceTracerLevel = 1;
    uint32_t pythonTracerLevel = 0;
    // Empty: the local time as TSL names runs, YYYY_MM_DD_HH_MM_SS (with _2, _3, ... when that
    // folder exists already).
    std::string runName;
    // How long a service may take to accept the connection before it is reported unreachable.
    uint64_t connectTimeoutMs = 5000;
    // How long one attempt may take in all; 0 means TSL's rule: max(60 s, 2 x duration) + delay.
    uint64_t deadlineMs = 0;
};

// The deadline of one attempt in ms (the rule above when options.deadlineMs is 0).
uint64_t attemptDeadlineMs(const RemoteCaptureOptions& options);

// Splits a comma-separated list of service addresses, trims spaces and a `grpc://` prefix, and
// checks each is host:port as TSL's ValidateHostPortPair does (one ':', a port number in
// 1..65535, a host without '/'); `[v6addr]:port` is accepted too. Returns an error naming the
// bad entry, or "" and fills `out`.
std::string parseServiceAddresses(std::string_view text, std::vector<std::string>& out);

// Everything a capture needs before it may start; "" when the options are usable.
std::string validateOptions(const RemoteCaptureOptions& options);

// What one service did in the last attempt.
struct ServiceOutcome {
    enum class State { Captured, EmptyTrace, Failed, Cancelled };
    std::string address;
    State state = State::Failed;
    std::string message;            // why it failed, in words that name the address
    bool retryable = false;         // a session already running there (ALREADY_EXISTS)
    std::vector<std::string> files; // files of this service in the run folder
};

struct RemoteCaptureResult {
    bool cancelled = false;
    std::string error;                 // set when nothing was captured; names every service
    std::string runName;               // the run folder's name
    std::string runDir;                // logDir/plugins/profile/<run>
    uint32_t attempts = 0;             // attempts made
    std::vector<std::string> files;    // files written (one .xplane.pb per service, tool data)
    std::vector<std::string> warnings; // services that failed while others captured
    std::vector<ServiceOutcome> services;
    bool ok() const { return !cancelled && error.empty(); }
};

// Captures every service of `options` in parallel into one run, retrying as described above.
// Blocks until done; reports "Attempt a of n: ..." with the elapsed share of delay + duration
// through `progress`, and stops (the servers see the call cancelled) soon after
// progress.cancel(). Never throws for a bad address, server or folder: the result says why.
RemoteCaptureResult captureRemote(const RemoteCaptureOptions& options, const Progress& progress);

} // namespace stepscope::capture
