#include "model/analysis/Precision.h"

namespace stepscope {

std::string_view precisionName(Precision p) {
    switch (p) {
    case Precision::FP4:
        return "fp4";
    case Precision::FP8:
        return "fp8";
    case Precision::INT8:
        return "int8";
    case Precision::FP16:
        return "fp16";
    case Precision::BF16:
        return "bf16";
    case Precision::TF32:
        return "tf32";
    case Precision::FP32:
        return "fp32";
    case Precision::FP64:
        return "fp64";
    case Precision::Unknown:
        break;
    }
    return "unknown";
}

std::string_view precisionSourceName(PrecisionSource s) {
    switch (s) {
    case PrecisionSource::Hlo:
        return "HLO element types";
    case PrecisionSource::OpInputTypes:
        return "op input types";
    case PrecisionSource::KernelName:
        return "kernel name";
    case PrecisionSource::TensorShapes:
        return "tensor shapes";
    case PrecisionSource::None:
        break;
    }
    return "none";
}

} // namespace stepscope
