#pragma once

#include <QString>
#include <vector>

#include "model/LogDir.h"

namespace stepscope {

// What the window shows, or what a load in flight will show once it succeeds: the path the user
// opened, the runs found there, and the chosen run and host. The window keeps the selection of
// the profile on screen apart from the one being loaded, so a failed or cancelled load leaves
// the selectors exactly as they were.
struct ProfileSelection {
    static constexpr int kAllHosts = -1;

    QString source;      // the path the user opened; empty for the demo
    Discovery discovery; // runs under `source`, newest first
    int run = -1;        // index into discovery.runs; -1 for the demo
    int host = kAllHosts;
    bool demo = false;

    const ProfileRun* currentRun() const;
    // The host files the selection loads: one host, or every host of the run.
    std::vector<HostFile> hostFiles() const;
    // "run · host" as the window title and messages name it.
    QString label() const;
};

// The host a run opens with: every host side by side (as `stepscope-cli info` loads them), or
// the one host of a single-host run.
int defaultHost(const ProfileRun& run);
// The host index of `run` named like `hostName`, else defaultHost(run). Keeps the user's host
// when switching runs, as TensorBoard does.
int hostNamed(const ProfileRun& run, const QString& hostName);

} // namespace stepscope
