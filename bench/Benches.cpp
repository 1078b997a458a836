#include "bench/Benches.h"

#include <cstdio>

namespace stepscope::bench {

const std::vector<Bench>& benches() {
    static const std::vector<Bench> all{
        {"load",
         "[--events-list N,N,..] [--with-100m] [--gpus G] [--threads-list T,T,..] [--file PATH]",
         "XSpace load speed and memory vs protobuf's parser", runBenchLoad},
        {"timeline", "[--events-list N,N,..] [--file PATH] [--no-naive]", "timeline frame times",
         nullptr},
        {"stats", "[--events N] [--file PATH] [--repeat R]", "kernel and op statistics times",
         runBenchStats},
        {"overview", "[--events N] [--repeat R]", "overview and input pipeline analysis times",
         runBenchOverview},
        {"memory", "[--events-list N,N,..] [--repeat R]",
         "memory profile analysis and timeline frame times", nullptr},
        {"diff", "[--events N] [--repeat R]", "run diff vs kernel + op stats of both runs",
         runBenchDiff},
        {"kineto", "[--events-list N,N,..] [--write-trace OUT.json --events N]",
         "Kineto JSON load speed and memory vs a bare simdjson parse", runBenchKineto},
        {"reopen", "[--events-list N,N,..] [--gpus G]",
         "reopening from the profile cache vs loading the source", runBenchReopen},
        {"capture", "[--records N] [--repeat R]",
         "the CUPTI injection library's cost per record and per flush, with a stand-in libcupti "
         "(no GPU needed)",
         runBenchCapture},
    };
    return all;
}

std::string benchHelp(std::string_view usage, bool withPainting) {
    auto lines = [](bool paints) {
        std::string out;
        for (const Bench& b : benches()) {
            if ((b.run == nullptr) != paints) continue;
            out += "  " + std::string(b.name) + (b.options.empty() ? "" : " ") +
                   std::string(b.options) + "\n      " + std::string(b.about) + "\n";
        }
        return out;
    };
    std::string help = std::string(usage) + "\n\nbenchmarks:\n" + lines(false);
    if (withPainting)
        help += lines(true);
    else
        help += "\nin stepscope-bench (the GUI build), as stepscope-bench NAME [OPTIONS], since "
                "they paint with Qt:\n" +
                lines(true);
    return help;
}

int runBench(std::string_view command, const std::vector<std::string>& args,
             BenchMain (*painting)(std::string_view name)) {
    const std::string cmd(command);
    const std::string help = benchHelp("usage: " + cmd + " NAME [OPTIONS]", painting != nullptr);
    if (args.empty()) {
        std::fprintf(stderr, "%s: no benchmark named\n\n%s", cmd.c_str(), help.c_str());
        return 2;
    }
    const std::string& name = args[0];
    if (name == "--help" || name == "-h" || name == "help") {
        std::fputs(help.c_str(), stdout);
        return 0;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    for (const Bench& b : benches()) {
        if (b.name != name) continue;
        if (b.run) return b.run(rest);
        if (const BenchMain paints = painting ? painting(b.name) : nullptr) return paints(rest);
        std::fprintf(stderr,
                     "%s: %s paints with Qt; run it as stepscope-bench %s (built with the GUI)\n",
                     cmd.c_str(), name.c_str(), name.c_str());
        return 1;
    }
    std::fprintf(stderr, "%s: unknown benchmark '%s'\n\n%s", cmd.c_str(), name.c_str(),
                 help.c_str());
    return 2;
}

} // namespace stepscope::bench
