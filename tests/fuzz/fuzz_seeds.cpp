// Writes small synthetic XSpaces (the generator behind --demo) into a folder, as seeds for the
// fuzz corpus next to the real profiles: small inputs let libFuzzer mutate every field kind
// quickly. Usage: fuzz_seeds OUTDIR
#include <cstdio>
#include <fstream>
#include <string>

#include "model/synthetic/SyntheticProfile.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_seeds OUTDIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    int written = 0;
    for (const uint64_t events : {40, 300, 3000})
        for (const int gpus : {1, 2}) {
            stepscope::SyntheticOptions options;
            options.events = events;
            options.gpus = gpus;
            options.seed = events + uint64_t(gpus);
            const auto bytes = stepscope::generateSyntheticXSpace(options, "seed");
            const std::string path = dir + "/synthetic_" + std::to_string(events) + "_" +
                                     std::to_string(gpus) + ".xplane.pb";
            std::ofstream out(path, std::ios::binary);
            out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
            if (!out) {
                std::fprintf(stderr, "fuzz_seeds: cannot write %s\n", path.c_str());
                return 1;
            }
            ++written;
        }
    std::printf("fuzz_seeds: %d seeds in %s\n", written, dir.c_str());
    return 0;
}
