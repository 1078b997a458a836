#pragma once

#include <atomic>
#include <functional>
#include <string_view>

namespace stepscope {

// Staged progress and cancellation for long work (loading, analyses). The callback may be called
// from the worker thread; it must be cheap and thread-safe. Nothing here is a QObject.
class Progress {
public:
    using Callback = std::function<void(std::string_view stage, double fraction)>;

    Progress() = default;
    explicit Progress(Callback callback)
        : callback_(std::move(callback)) {}

    void report(std::string_view stage, double fraction) const {
        if (callback_) callback_(stage, fraction);
    }
    void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
    bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

private:
    Callback callback_;
    std::atomic<bool> cancelled_{false};
};

} // namespace stepscope
