#pragma once

#include <string_view>

namespace stepscope {

// How the kernel-name rules (Precision.cpp, TensorCore.cpp) cut a name: identifiers are the runs
// of [A-Za-z0-9_] ("void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_bf16_...>(...)" holds
// "void", "cutlass", "Kernel2", "cutlass_80_tensorop_s16816gemm_bf16_..."), and parts the
// '_'-separated pieces of an identifier ("cutlass", "80", "tensorop", "s16816gemm", "bf16").

inline bool isIdentifierChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Calls f(identifier) for each identifier of `text` until f returns true; returns whether it did.
template <typename F> bool anyIdentifier(std::string_view text, F&& f) {
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && !isIdentifierChar(text[i])) ++i;
        const size_t begin = i;
        while (i < text.size() && isIdentifierChar(text[i])) ++i;
        if (i > begin && f(text.substr(begin, i - begin))) return true;
    }
    return false;
}

// Calls f(part) for each non-empty '_'-separated part of an identifier until f returns true.
template <typename F> bool anyPart(std::string_view identifier, F&& f) {
    size_t i = 0;
    while (i < identifier.size()) {
        size_t j = identifier.find('_', i);
        if (j == std::string_view::npos) j = identifier.size();
        if (j > i && f(identifier.substr(i, j - i))) return true;
        i = j + 1;
    }
    return false;
}

// Every part of every identifier of a name.
template <typename F> bool anyNamePart(std::string_view name, F&& f) {
    return anyIdentifier(name, [&](std::string_view id) { return anyPart(id, f); });
}

} // namespace stepscope
