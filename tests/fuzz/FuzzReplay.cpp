// The main of a fuzz target's corpus replay: runs LLVMFuzzerTestOneInput on every file under the
// folders (or files) given, in name order, with no libFuzzer, so the checked-in corpus of each
// target (tests/fuzz/corpus/<target>) runs as an ordinary CTest test in every build; in the
// sanitizer build an input that crashed once fails again with its report. Prints each input
// before running it, so a crash names its file. Usage: replay_<target> PATH...
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s PATH...\n", argv[0]);
        return 2;
    }
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i) {
        std::error_code ec;
        if (fs::is_directory(argv[i], ec)) {
            for (const auto& entry : fs::recursive_directory_iterator(argv[i], ec))
                if (entry.is_regular_file()) inputs.push_back(entry.path());
        } else if (fs::is_regular_file(argv[i], ec)) {
            inputs.push_back(argv[i]);
        }
        if (ec) {
            std::fprintf(stderr, "%s: cannot read %s: %s\n", argv[0], argv[i],
                         ec.message().c_str());
            return 1;
        }
    }
    if (inputs.empty()) {
        std::fprintf(stderr, "%s: no inputs\n", argv[0]);
        return 1;
    }
    std::sort(inputs.begin(), inputs.end());
    const auto start = std::chrono::steady_clock::now();
    for (const fs::path& path : inputs) {
        std::ifstream in(path, std::ios::binary | std::ios::ate);
        std::vector<uint8_t> bytes(size_t(std::max<std::streamoff>(0, in.tellg())));
        in.seekg(0);
        in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
        if (!in) {
            std::fprintf(stderr, "%s: cannot read %s\n", argv[0], path.c_str());
            return 1;
        }
        std::fprintf(stderr, "%s\n", path.c_str());
        LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %zu inputs replayed in %.2f s\n", argv[0], inputs.size(), seconds);
    return 0;
}
