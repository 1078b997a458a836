#pragma once

#include <cstdint>
#include <string_view>

namespace stepscope {

// The numeric precision a kernel or op computes in, as far as the profile says. Ordered from the
// narrowest to the widest; Unknown sorts last and means "nothing in the profile says".
enum class Precision : uint8_t { FP4, FP8, INT8, FP16, BF16, TF32, FP32, FP64, Unknown };
inline constexpr size_t kPrecisionCount = 9;

// "fp4", "fp8", "int8", "fp16", "bf16", "tf32", "fp32", "fp64", "unknown".
std::string_view precisionName(Precision p);

// Narrower than 32 bits: what XProf's overview counts as "16-bit" device compute (fp16, bf16,
// and the 8- and 4-bit types that came after it).
inline bool isBelow32Bit(Precision p) {
    return p == Precision::FP4 || p == Precision::FP8 || p == Precision::INT8 ||
           p == Precision::FP16 || p == Precision::BF16;
}

// Where a precision answer came from, best first. The first source that says anything wins.
enum class PrecisionSource : uint8_t {
    Hlo,          // the element types of the XLA HLO instruction (/host:metadata HLO protos)
    OpInputTypes, // the "Input type" of the PyTorch op that launched the kernel (Kineto)
    KernelName,   // type tokens in the kernel's name
    TensorShapes, // XProf's rule: the TensorFlow op's tensor shapes mention "half"
    None          // nothing said: Precision::Unknown
};
std::string_view precisionSourceName(PrecisionSource s);

} // namespace stepscope
