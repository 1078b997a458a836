#include "model/synthetic/SyntheticProfile.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string_view>
#include <unordered_map>

#include "model/xspace/SpillFile.h"
#include "model/xspace/XSpaceWriter.h"

// The synthetic profile imitates what the TensorFlow profiler records for a Keras model trained
// with mixed precision under MirroredStrategy on A100s, one `tf_gpu_private` launch thread per
// GPU: a conv net followed by dense layers, forward, loss, backward (repeated per micro-batch when
// more events are asked for), NCCL all-reduce, Adam updates, and the input batch copied in and
// the loss copied out. Everything is simulated in time: host threads launch, kernels queue on
// their stream behind the previous kernel, the device idles while the host is the bottleneck.
//
// Planning and timing are separate: the op list (names, kernels, allocations) is fixed for a
// given size and counted exactly beforehand, so the event count meets the request; only
// durations are random, from a seed mixed with the host name.

namespace stepscope {

namespace {

constexpr int64_t kPsPerUs = 1000000;
constexpr int64_t kBaseEpochNs = 1718000000000000000; // 2024-06-10, a plausible capture time
constexpr int kMaxLayers = 48;
constexpr uint64_t kGpuMemoryBytes = 40ull << 30; // A100 40 GB
constexpr uint64_t kAllocatorLimit = 38ull << 30; // what TF's BFC allocator claims of it

// splitmix64: the same sequence on every platform and standard library.
class Rng {
public:
    explicit Rng(uint64_t seed)
        : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    double between(double lo, double hi) { return lo + (hi - lo) * uniform(); }

private:
    uint64_t state_;
};

uint64_t hashName(std::string_view s) {
    uint64_t h = 1469598103934665603ull; // FNV-1a
    for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    return h;
}

// Rounds picoseconds to whole nanoseconds, the resolution of real host and CUPTI timestamps.
int64_t toNs(double ps) {
    return static_cast<int64_t>(std::llround(ps / 1000.0)) * 1000;
}

// ---------------------------------------------------------------- what a model is made of

enum class KernelShape { Gemm, Elementwise, Reduction };

struct KernelSpec {
    const char* name;
    KernelShape shape;
    int regs, staticShared, dynamicShared;
    int block;
    double occupancyPct;
};

// Real kernel names of TF 2.x / cuDNN 8 / cuBLAS 11 on Ampere (Tensor Core ones first).
const KernelSpec kConvFprop{"sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_"
                            "tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_kernel",
                            KernelShape::Gemm,
                            168,
                            0,
                            81920,
                            128,
                            12.5};
const KernelSpec kConvDgrad{"sm80_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_"
                            "tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_kernel",
                            KernelShape::Gemm,
                            168,
                            0,
                            81920,
                            128,
                            12.5};
const KernelSpec kConvWgrad{"sm80_xmma_wgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_"
                            "tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_kernel",
                            KernelShape::Gemm,
                            166,
                            0,
                            81920,
                            128,
                            12.5};
const KernelSpec kGemmFp16{"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
                           KernelShape::Gemm,
                           230,
                           0,
                           81920,
                           256,
                           12.5};
const KernelSpec kGemmFp16Tn{"ampere_fp16_s16816gemm_fp16_64x64_sliced1x2_ldg8_f2f_stages_64x5_tn",
                             KernelShape::Gemm,
                             122,
                             0,
                             73728,
                             128,
                             25};
const KernelSpec kGemmVolta{
    "volta_h884gemm_64x128_ldg8_nt", KernelShape::Gemm, 126, 0, 36864, 256, 25};
const KernelSpec kSgemm{"ampere_sgemm_128x64_nn", KernelShape::Gemm, 122, 12544, 0, 128, 25};
const KernelSpec kBias{"void tensorflow::BiasNCHWKernel<Eigen::half>(int, Eigen::half const*, "
                       "Eigen::half const*, Eigen::half*, int, int)",
                       KernelShape::Elementwise,
                       16,
                       0,
                       0,
                       1024,
                       100};
const KernelSpec kBiasGrad{"void tensorflow::BiasGradNCHW_SharedAtomics<Eigen::half>(Eigen::half "
                           "const*, Eigen::half*, int, int, int, int)",
                           KernelShape::Reduction,
                           32,
                           4,
                           0,
                           256,
                           100};
const KernelSpec kRelu{
    "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::"
    "TensorMap<Eigen::Tensor<Eigen::half, 1, 1, long>, 16, Eigen::MakePointer>, "
    "Eigen::TensorCwiseUnaryOp<Eigen::internal::scalar_max_op<Eigen::half const, Eigen::half "
    "const, 0>, Eigen::TensorMap<Eigen::Tensor<Eigen::half const, 1, 1, long>, 16, "
    "Eigen::MakePointer> const> const> const, Eigen::GpuDevice>, long>",
    KernelShape::Elementwise,
    18,
    0,
    0,
    1024,
    100};
const KernelSpec kReluGrad{
    "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::"
    "TensorMap<Eigen::Tensor<Eigen::half, 1, 1, long>, 16, Eigen::MakePointer>, "
    "Eigen::TensorCwiseBinaryOp<tensorflow::functor::ReluGradFunctor<Eigen::half>, "
    "Eigen::TensorMap<Eigen::Tensor<Eigen::half const, 1, 1, long>, 16, Eigen::MakePointer> "
    "const> const> const, Eigen::GpuDevice>, long>",
    KernelShape::Elementwise,
    20,
    0,
    0,
    1024,
    100};
const KernelSpec kCast{
    "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::"
    "TensorMap<Eigen::Tensor<Eigen::half, 1, 1, long>, 16, Eigen::MakePointer>, "
    "Eigen::TensorConversionOp<Eigen::half, Eigen::TensorMap<Eigen::Tensor<float const, 1, 1, "
    "long>, 16, Eigen::MakePointer> const> const> const, Eigen::GpuDevice>, long>",
    KernelShape::Elementwise,
    16,
    0,
    0,
    1024,
    100};
const KernelSpec kBnForward{"void cudnn::bn_fw_tr_1C11_kernel_NCHW<__half, float, 512, true, 1>("
                            "cudnnTensorStruct, __half const*, cudnnTensorStruct, __half*, float "
                            "const*, float const*, float, float, float*, float*, float*, float*, "
                            "float, float)",
                            KernelShape::Reduction,
                            40,
                            4096,
                            0,
                            512,
                            75};
const KernelSpec kBnBackward{"void cudnn::bn_bw_1C11_kernel_new<__half, float, float2, 512, "
                             "true, 1>(__half, __half, __half, __half, cudnnTensorStruct, __half "
                             "const*, cudnnTensorStruct, __half const*, cudnnTensorStruct, "
                             "__half*, float const*, float*, float*, float const*, float const*, "
                             "float)",
                             KernelShape::Reduction,
                             48,
                             8192,
                             0,
                             512,
                             50};
const KernelSpec kXent{"void tensorflow::functor::SparseXentKernel<float, int>(float const*, int "
                       "const*, float*, float*, int, int)",
                       KernelShape::Reduction,
                       32,
                       0,
                       0,
                       256,
                       100};
const KernelSpec kAdam{"void tensorflow::functor::ApplyAdamKernel<float>(int, float*, float*, "
                       "float*, float const*, float const*, float const*, float const*, float "
                       "const*, float const*, float const*, bool)",
                       KernelShape::Elementwise,
                       30,
                       0,
                       0,
                       1024,
                       100};
const KernelSpec kAllReduce{"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, "
                            "ncclWork*)",
                            KernelShape::Reduction,
                            96,
                            0,
                            0,
                            256,
                            25};

// One kernel an op launches, with its expected duration on this layer.
struct KernelUse {
    const KernelSpec* spec;
    double us;
    int64_t workItems; // what the grid is sized from
};

struct MemAction {
    bool free = false;
    int64_t requested = 0;
    int64_t allocated = 0; // rounded up as the BFC allocator does
    int64_t offset = 0;    // from the allocator's base: allocations are stack-like
    int dataType = 19;     // DT_HALF (DT_FLOAT = 1)
    std::string shape;
};

enum class OpWork { Kernels, CopyIn, CopyOut, AllReduce };

struct OpDesc {
    std::string name; // "model/layer_3/conv2d/Conv2D:Conv2D"
    OpWork work = OpWork::Kernels;
    std::vector<KernelUse> kernels;
    std::vector<MemAction> allocations; // before the launches
    std::vector<MemAction> frees;       // after them
    double hostUs = 10;
    uint64_t copyBytes = 0;
};

// The ops one GPU runs in one step, in order: head (input copy), the micro-batch body (repeated),
// all-reduce, tail (optimizer, loss copy out).
struct StepOps {
    std::vector<OpDesc> head, body, allReduce, tail;
};

// Output activations of a layer, in elements, and its tensor shape text.
struct LayerShape {
    int64_t elements;
    std::string shape;
    bool conv;
    int stage;
};

LayerShape layerShape(int layer, int layers) {
    const int convLayers = std::max(1, layers * 3 / 4);
    constexpr int batch = 64;
    if (layer < convLayers) {
        const int stage = std::min(3, layer * 4 / convLayers);
        const int hw = 56 >> stage, channels = 64 << stage;
        return {int64_t(batch) * hw * hw * channels,
                "(" + std::to_string(batch) + "," + std::to_string(hw) + "," + std::to_string(hw) +
                    "," + std::to_string(channels) + ")",
                true, stage};
    }
    constexpr int hidden = 2048;
    return {int64_t(batch) * hidden, "(64,2048)", false, 4};
}

// Bandwidth-bound kernel time: read + write of fp16 activations at ~1.3 TB/s, 4 µs minimum.
double elementwiseUs(int64_t elements, double passes) {
    return std::max(4.0, passes * double(elements) * 2.0 / 1.3e6);
}

class ModelPlanner {
public:
    // MirroredStrategy names the ops of every replica but the first "replica_N/...".
    ModelPlanner(int gpu, int gpus)
        : gpus_(gpus)
        , prefix_(gpu == 0 ? "" : "replica_" + std::to_string(gpu) + "/") {}

    StepOps plan(int layers) {
        stackTop_ = 0;
        StepOps ops;
        const int64_t inputElements = int64_t(64) * 224 * 224 * 3;
        OpDesc getNext = op("IteratorGetNext:IteratorGetNext", OpWork::CopyIn, 12);
        getNext.copyBytes = uint64_t(inputElements) * 2;
        alloc(getNext, inputElements, 19, "(64,224,224,3)");
        ops.head.push_back(std::move(getNext));

        std::vector<std::vector<MemAction>> live(layers);
        for (int l = 0; l < layers; ++l) forwardLayer(ops.body, l, layers, live[l]);
        OpDesc loss = op("sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/"
                         "SparseSoftmaxCrossEntropyWithLogits:SparseSoftmaxCrossEntropyWithLogits",
                         OpWork::Kernels, 14);
        loss.kernels.push_back({&kXent, 9, 64 * 1000});
        alloc(loss, 64 * 1000, 1, "(64,1000)");
        live.back().push_back(loss.allocations.back());
        ops.body.push_back(std::move(loss));
        for (int l = layers - 1; l >= 0; --l) backwardLayer(ops.body, l, layers, live[l]);

        if (gpus_ > 1) {
            OpDesc reduce = op("Adam/NcclAllReduce:NcclAllReduce", OpWork::AllReduce, 25);
            reduce.kernels.push_back({&kAllReduce, 400 + 35.0 * layers, 108 * 256});
            ops.allReduce.push_back(std::move(reduce));
        }
        for (int l = 0; l < layers; ++l) {
            const LayerShape s = layerShape(l, layers);
            const double params = s.conv ? 9.0 * (64 << s.stage) * (64 << s.stage) : 2048.0 * 2048;
            for (const char* var : {"kernel", "bias"}) {
                OpDesc adam = op("Adam/Adam/update_" + std::to_string(2 * l + (var[0] == 'b')) +
                                     "/ResourceApplyAdam:ResourceApplyAdam",
                                 OpWork::Kernels, 9);
                const double n = var[0] == 'b' ? double(64 << std::min(s.stage, 3)) : params;
                adam.kernels.push_back({&kAdam, std::max(3.0, n * 16 / 1.3e6), int64_t(n)});
                ops.tail.push_back(std::move(adam));
            }
        }
        OpDesc send = op("_send_loss_0:_Send", OpWork::CopyOut, 10);
        send.copyBytes = 4;
        release(send, ops.head.front().allocations.front());
        ops.tail.push_back(std::move(send));
        return ops;
    }

private:
    OpDesc op(const std::string& name, OpWork work, double hostUs) {
        OpDesc d;
        d.name = prefix_ + name;
        d.work = work;
        d.hostUs = hostUs;
        return d;
    }
    void alloc(OpDesc& d, int64_t elements, int dataType, const std::string& shape) {
        MemAction a;
        a.requested = elements * (dataType == 1 ? 4 : 2);
        a.allocated = (a.requested + 255) / 256 * 256;
        a.offset = stackTop_;
        a.dataType = dataType;
        a.shape = shape;
        stackTop_ += a.allocated;
        d.allocations.push_back(a);
    }
    void release(OpDesc& d, const MemAction& a) {
        MemAction f = a;
        f.free = true;
        stackTop_ -= a.allocated;
        d.frees.push_back(f);
    }

    void forwardLayer(std::vector<OpDesc>& out, int l, int layers, std::vector<MemAction>& live) {
        const LayerShape s = layerShape(l, layers);
        const std::string scope = "model/layer_" + std::to_string(l) + "/";
        auto push = [&](OpDesc d, const KernelSpec& k, double us) {
            d.kernels.push_back({&k, us, s.elements});
            alloc(d, s.elements, 19, s.shape);
            live.push_back(d.allocations.back());
            out.push_back(std::move(d));
        };
        if (s.conv) {
            const double convUs = 190.0 * (1.0 + 0.05 * s.stage);
            push(op(scope + "conv2d/Cast:Cast", OpWork::Kernels, 8), kCast,
                 elementwiseUs(9ll * (64 << s.stage) * (64 << s.stage), 3));
            push(op(scope + "conv2d/Conv2D:Conv2D", OpWork::Kernels, 22), kConvFprop, convUs);
            push(op(scope + "conv2d/BiasAdd:BiasAdd", OpWork::Kernels, 9), kBias,
                 elementwiseUs(s.elements, 2));
            push(op(scope + "batch_normalization/FusedBatchNormV3:FusedBatchNormV3",
                    OpWork::Kernels, 16),
                 kBnForward, elementwiseUs(s.elements, 3));
            push(op(scope + "re_lu/Relu:Relu", OpWork::Kernels, 8), kRelu,
                 elementwiseUs(s.elements, 2));
        } else {
            const bool last = l == layers - 1; // mixed precision keeps the logits in float32
            push(op(scope + "dense/Cast:Cast", OpWork::Kernels, 8), kCast,
                 elementwiseUs(2048 * 2048, 3));
            push(op(scope + "dense/MatMul:MatMul", OpWork::Kernels, 14), last ? kSgemm : kGemmFp16,
                 last ? 38 : 14);
            push(op(scope + "dense/BiasAdd:BiasAdd", OpWork::Kernels, 8), kBias,
                 elementwiseUs(s.elements, 2));
            push(op(scope + "dense/Relu:Relu", OpWork::Kernels, 8), kRelu,
                 elementwiseUs(s.elements, 2));
        }
    }

    void backwardLayer(std::vector<OpDesc>& out, int l, int layers, std::vector<MemAction>& live) {
        const LayerShape s = layerShape(l, layers);
        const std::string scope = "gradient_tape/model/layer_" + std::to_string(l) + "/";
        std::vector<OpDesc> ops;
        auto add = [&](OpDesc d, std::initializer_list<std::pair<const KernelSpec*, double>> ks) {
            for (const auto& [k, us] : ks) d.kernels.push_back({k, us, s.elements});
            ops.push_back(std::move(d));
        };
        if (s.conv) {
            const double convUs = 200.0 * (1.0 + 0.05 * s.stage);
            add(op(scope + "re_lu/ReluGrad:ReluGrad", OpWork::Kernels, 9),
                {{&kReluGrad, elementwiseUs(s.elements, 3)}});
            add(op(scope + "batch_normalization/FusedBatchNormGradV3:FusedBatchNormGradV3",
                   OpWork::Kernels, 18),
                {{&kBnBackward, elementwiseUs(s.elements, 4)}});
            add(op(scope + "conv2d/BiasAdd/BiasAddGrad:BiasAddGrad", OpWork::Kernels, 9),
                {{&kBiasGrad, elementwiseUs(s.elements, 1)}});
            add(op(scope + "conv2d/Conv2D/Conv2DBackpropInput:Conv2DBackpropInput", OpWork::Kernels,
                   24),
                {{&kConvDgrad, convUs}});
            add(op(scope + "conv2d/Conv2D/Conv2DBackpropFilter:Conv2DBackpropFilter",
                   OpWork::Kernels, 26),
                {{&kConvWgrad, convUs * 1.1},
                 {&kCast, elementwiseUs(9ll << (12 + 2 * s.stage), 3)}});
        } else {
            add(op(scope + "dense/ReluGrad:ReluGrad", OpWork::Kernels, 8),
                {{&kReluGrad, elementwiseUs(s.elements, 3)}});
            add(op(scope + "dense/BiasAdd/BiasAddGrad:BiasAddGrad", OpWork::Kernels, 8),
                {{&kBiasGrad, 5}});
            add(op(scope + "dense/MatMul/MatMul:MatMul", OpWork::Kernels, 13),
                {{&kGemmFp16Tn, 15}});
            add(op(scope + "dense/MatMul/MatMul_1:MatMul", OpWork::Kernels, 13),
                {{&kGemmVolta, 17}});
        }
        // The forward activations, kept for the backward pass, die when it ends; freed in
        // reverse order of allocation, as a stack.
        for (auto a = live.rbegin(); a != live.rend(); ++a) release(ops.back(), *a);
        live.clear();
        for (OpDesc& d : ops) out.push_back(std::move(d));
    }

    int gpus_;
    std::string prefix_;
    int64_t stackTop_ = 0;
};

// Events one op contributes: its host event, each allocation and free, per kernel (or copy) a
// launch and a device event, and one "TensorFlow Ops" event when it ran on the device.
uint64_t countEvents(const std::vector<OpDesc>& ops) {
    uint64_t n = 0;
    for (const OpDesc& d : ops) {
        const size_t device =
            d.work == OpWork::CopyIn || d.work == OpWork::CopyOut ? 1 : d.kernels.size();
        n += 1 + d.allocations.size() + d.frees.size() + 2 * device + (device ? 1 : 0);
    }
    return n;
}

// Host events per step that belong to no GPU: the python step, Iterator::GetNext and its
// Iterator::Prefetch child, two CPU ops on tf_Compute threads.
constexpr uint64_t kHostEventsPerStep = 5;

struct Sizing {
    int steps = 1, layers = 1, microBatches = 1;
};

uint64_t gpuEventsPerStep(const StepOps& ops, int micro) {
    return countEvents(ops.head) + micro * countEvents(ops.body) + countEvents(ops.allReduce) +
           countEvents(ops.tail) + 1 /* Steps line */;
}

// Picks steps, layers and micro-batches so that events per host come close to the request.
Sizing chooseSizing(uint64_t events, int gpus) {
    Sizing s;
    s.steps = static_cast<int>(std::clamp<uint64_t>(events / 4000, 2, 20));
    const double perGpu =
        (double(events) / s.steps - double(kHostEventsPerStep)) / gpus; // events per GPU per step
    ModelPlanner planner(0, gpus);
    const StepOps full = planner.plan(kMaxLayers);
    const double fixedFull = double(gpuEventsPerStep(full, 0));
    s.microBatches = std::max(
        1, static_cast<int>(std::ceil((perGpu - fixedFull) / double(countEvents(full.body)))));
    // The smallest layer count whose step reaches the budget, or the one just below if closer.
    int lo = 1, hi = kMaxLayers;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (double(gpuEventsPerStep(planner.plan(mid), s.microBatches)) >= perGpu)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo > 1) {
        const double above = double(gpuEventsPerStep(planner.plan(lo), s.microBatches)) - perGpu;
        const double below =
            perGpu - double(gpuEventsPerStep(planner.plan(lo - 1), s.microBatches));
        if (below < above) --lo;
    }
    s.layers = lo;
    return s;
}

// ---------------------------------------------------------------- writing

// Interns event and stat metadata names of one plane, writing each on first use.
class PlaneNames {
public:
    explicit PlaneNames(XPlaneWriter& plane)
        : plane_(plane) {}
    int64_t event(const std::string& name) {
        auto [it, added] = events_.try_emplace(name, int64_t(events_.size()) + 1);
        if (added) plane_.addEventMetadata(it->second, name);
        return it->second;
    }
    int64_t stat(const std::string& name) {
        auto [it, added] = stats_.try_emplace(name, int64_t(stats_.size()) + 1);
        if (added) plane_.addStatMetadata(it->second, name);
        return it->second;
    }

private:
    XPlaneWriter& plane_;
    std::unordered_map<std::string, int64_t> events_, stats_;
};

// Stat metadata ids used on the host plane.
struct HostStats {
    int64_t correlationId, groupId, stepNum, allocatorName, bytesAllocated, bytesReserved,
        bytesAvailable, peakBytes, requestedBytes, allocationBytes, addr, fragmentation, regionType,
        dataType, shape, tfOp;
    explicit HostStats(PlaneNames& n)
        : correlationId(n.stat("correlation_id"))
        , groupId(n.stat("group_id"))
        , stepNum(n.stat("step_num"))
        , allocatorName(n.stat("allocator_name"))
        , bytesAllocated(n.stat("bytes_allocated"))
        , bytesReserved(n.stat("bytes_reserved"))
        , bytesAvailable(n.stat("bytes_available"))
        , peakBytes(n.stat("peak_bytes_in_use"))
        , requestedBytes(n.stat("requested_bytes"))
        , allocationBytes(n.stat("allocation_bytes"))
        , addr(n.stat("addr"))
        , fragmentation(n.stat("fragmentation"))
        , regionType(n.stat("region_type"))
        , dataType(n.stat("data_type"))
        , shape(n.stat("shape"))
        , tfOp(n.stat("tf_op")) {}
};

// One planned op with every id resolved for its host and device planes.
struct ResolvedKernel {
    int64_t meta;    // device plane event metadata
    int64_t details; // device plane stat metadata holding the kernel_details text
    double us;
};
struct ResolvedOp {
    const OpDesc* desc;
    int64_t hostMeta, deviceMeta, tfOpRef, launchMeta;
    std::vector<ResolvedKernel> kernels;
    std::string memcpyDetails;
};

struct GpuState {
    int ordinal = 0;
    XLineWriter* thread = nullptr;  // tf_gpu_private_N on the host
    XLineWriter* compute = nullptr; // device streams
    XLineWriter* copyIn = nullptr;
    XLineWriter* copyOut = nullptr;
    XLineWriter* tfOps = nullptr;
    XLineWriter* steps = nullptr;
    int64_t deviceStatCorrelation = 0, deviceStatKernelDetails = 0, deviceStatTfOp = 0,
            deviceStatGroup = 0, deviceStatMemcpy = 0, deviceStatStepName = 0;
    int64_t allocatorRef = 0; // host stat metadata naming "GPU_N_bfc"
    int64_t allocMeta = 0, freeMeta = 0;
    PlaneNames* deviceNames = nullptr;
    std::vector<ResolvedOp> head, body, allReduce, tail;

    // Simulated clocks, in picoseconds from the profile start.
    double hostTime = 0, computeFree = 0, copyInFree = 0, copyOutFree = 0;
    double stepFirstDeviceStart = -1, stepLastDeviceEnd = 0;
    int64_t bytesInUse = 0, peakBytes = 0;
};

std::string kernelDetailsText(const KernelSpec& k, int64_t workItems) {
    int64_t gx = 1, gy = 1;
    switch (k.shape) {
    case KernelShape::Gemm:
        // Tiles of 128 rows over the activations, up to 8 column tiles.
        gx = std::max<int64_t>(1, std::min<int64_t>(workItems / (128 * 64), 65535));
        gy = std::clamp<int64_t>(workItems / (1 << 22), 1, 8);
        break;
    case KernelShape::Elementwise:
        gx = std::clamp<int64_t>(workItems / (k.block * 4), 1, 108 * 2048 / k.block);
        break;
    case KernelShape::Reduction:
        gx = std::clamp<int64_t>(workItems / (k.block * 64), 1, 1024);
        break;
    }
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "regs:%d static_shared:%d dynamic_shared:%d grid:%lld,%lld,1 block:%d,1,1 "
                  "occ_pct:%g",
                  k.regs, k.staticShared, k.dynamicShared, static_cast<long long>(gx),
                  static_cast<long long>(gy), k.block, k.occupancyPct);
    return buf;
}

class HostGenerator {
public:
    HostGenerator(const SyntheticOptions& options, const std::string& hostName)
        : hostName_(hostName)
        , rng_(options.seed * 0x9E3779B97F4A7C15ull ^ hashName(hostName)) {
        gpus_ = std::clamp(options.gpus, 1, 64);
        sizing_ = chooseSizing(std::max<uint64_t>(options.events, 1), gpus_);
        // Each host runs slightly differently: a few percent slower or faster, a later start.
        speed_ = rng_.between(0.96, 1.08);
        startNs_ = kBaseEpochNs + static_cast<int64_t>(rng_.next() % 400000);
    }

    void generate(XSpaceWriter& writer) {
        writer.addHostname(hostName_);
        XPlaneWriter& hostPlane = writer.addPlane(0, "/host:CPU");
        PlaneNames hostNames(hostPlane);
        HostStats hs(hostNames);
        const int64_t tidBase = 10000 + static_cast<int64_t>(hashName(hostName_) % 50000);
        XLineWriter& python = hostPlane.addLine(tidBase, "python3", startNs_);
        XLineWriter* computeThreads[2] = {
            &hostPlane.addLine(tidBase + 3, "tf_Compute/" + std::to_string(tidBase + 3), startNs_),
            &hostPlane.addLine(tidBase + 4, "tf_Compute/" + std::to_string(tidBase + 4), startNs_)};

        std::vector<GpuState> gpus(gpus_);
        plans_.reserve(gpus_); // resolved ops point into the plans
        std::vector<std::unique_ptr<PlaneNames>> deviceNames;
        for (int g = 0; g < gpus_; ++g) {
            GpuState& s = gpus[g];
            s.ordinal = g;
            const int64_t tid = tidBase + 10 + g;
            s.thread = &hostPlane.addLine(
                tid, "tf_gpu_private_" + std::to_string(g) + "/" + std::to_string(tid), startNs_);
            s.allocatorRef = hostNames.stat("GPU_" + std::to_string(g) + "_bfc");
            s.allocMeta = hostNames.event("MemoryAllocation");
            s.freeMeta = hostNames.event("MemoryDeallocation");

            XPlaneWriter& device = writer.addPlane(g + 1, "/device:GPU:" + std::to_string(g));
            deviceNames.push_back(std::make_unique<PlaneNames>(device));
            PlaneNames& dn = *deviceNames.back();
            s.deviceNames = &dn;
            addDeviceStats(device, dn);
            const int64_t stream = 20 + 4 * g;
            auto streamName = [](int64_t id, const char* kind) {
                return "Stream #" + std::to_string(id) + "(" + kind + ")";
            };
            s.compute = &device.addLine(stream, streamName(stream, "Compute"), startNs_);
            s.copyIn = &device.addLine(stream + 1, streamName(stream + 1, "MemcpyH2D"), startNs_);
            s.copyOut = &device.addLine(stream + 2, streamName(stream + 2, "MemcpyD2H"), startNs_);
            s.tfOps = &device.addLine(-559038734, "TensorFlow Ops", startNs_);
            s.steps = &device.addLine(-559038737, "Steps", startNs_);
            s.deviceStatCorrelation = dn.stat("correlation_id");
            s.deviceStatKernelDetails = dn.stat("kernel_details");
            s.deviceStatTfOp = dn.stat("tf_op");
            s.deviceStatGroup = dn.stat("group_id");
            s.deviceStatMemcpy = dn.stat("memcpy_details");
            s.deviceStatStepName = dn.stat("step_name");

            ModelPlanner planner(g, gpus_);
            plans_.push_back(planner.plan(sizing_.layers));
            const StepOps& plan = plans_.back();
            resolve(plan.head, s.head, hostNames, dn, g);
            resolve(plan.body, s.body, hostNames, dn, g);
            resolve(plan.allReduce, s.allReduce, hostNames, dn, g);
            resolve(plan.tail, s.tail, hostNames, dn, g);
        }

        const int64_t trainMeta = hostNames.event("train");
        const int64_t getNextMeta = hostNames.event("Iterator::GetNext");
        const int64_t prefetchMeta = hostNames.event("Iterator::Prefetch");
        const int64_t assignMeta =
            hostNames.event("Adam/Adam/AssignAddVariableOp:AssignAddVariableOp");
        const int64_t readMeta = hostNames.event("Adam/Cast_1/ReadVariableOp:ReadVariableOp");

        double t = us(rng_.between(200, 600));
        for (int step = 0; step < sizing_.steps; ++step) {
            const double stepStart = t;
            // Input: usually a prefetched batch is ready; now and then the pipeline stalls.
            const double inputUs = step % 4 == 3 ? rng_.between(1500, 6000) : rng_.between(60, 300);
            const double getNextStart = stepStart + us(rng_.between(15, 40));
            const double getNextEnd = getNextStart + us(inputUs);
            for (GpuState& s : gpus) {
                s.hostTime = getNextEnd + us(rng_.between(10, 30));
                s.stepFirstDeviceStart = -1;
                s.stepLastDeviceEnd = 0;
                runOps(s, s.head, step, hs);
                for (int m = 0; m < sizing_.microBatches; ++m) runOps(s, s.body, step, hs);
            }
            if (gpus_ > 1) allReduce(gpus, step, hs);
            double stepEnd = 0;
            for (GpuState& s : gpus) {
                runOps(s, s.tail, step, hs);
                stepEnd = std::max(stepEnd, s.stepLastDeviceEnd);
                const std::string stepName = std::to_string(step);
                const WireStat stepStats[] = {WireStat::int64(s.deviceStatGroup, step),
                                              WireStat::str(s.deviceStatStepName, stepName)};
                s.steps->addEvent(s.deviceNames->event(stepName), toNs(s.stepFirstDeviceStart),
                                  toNs(s.stepLastDeviceEnd) - toNs(s.stepFirstDeviceStart),
                                  stepStats);
            }
            // The python thread waits for the loss, then reports the step.
            const double trainEnd = stepEnd + us(rng_.between(20, 60));
            const WireStat trainStats[] = {WireStat::int64(hs.stepNum, step),
                                           WireStat::int64(hs.groupId, step)};
            python.addEvent(trainMeta, toNs(stepStart), toNs(trainEnd) - toNs(stepStart),
                            trainStats);
            const WireStat group[] = {WireStat::int64(hs.groupId, step)};
            python.addEvent(getNextMeta, toNs(getNextStart), toNs(getNextEnd) - toNs(getNextStart),
                            group);
            const double prefetchStart = getNextStart + us(rng_.between(2, 6));
            const double prefetchEnd = getNextEnd - us(rng_.between(2, 6));
            python.addEvent(prefetchMeta, toNs(prefetchStart),
                            std::max<int64_t>(0, toNs(prefetchEnd) - toNs(prefetchStart)), group);
            // Small CPU ops of the step on the inter-op threads.
            const double readStart = getNextEnd + us(rng_.between(5, 20));
            computeThreads[0]->addEvent(readMeta, toNs(readStart), toNs(us(rng_.between(3, 9))),
                                        group);
            const double assignStart = stepEnd - us(rng_.between(30, 80));
            computeThreads[1]->addEvent(assignMeta, toNs(assignStart),
                                        toNs(us(rng_.between(4, 12))), group);
            t = trainEnd + us(rng_.between(80, 400));
        }
    }

private:
    double us(double micros) const { return micros * double(kPsPerUs); }

    void addDeviceStats(XPlaneWriter& device, PlaneNames& dn) {
        // An A100-SXM4-40GB.
        device.addStat(WireStat::int64(dn.stat("clock_rate"), 1410000)); // kHz
        device.addStat(WireStat::int64(dn.stat("core_count"), 108));
        device.addStat(WireStat::uint64(dn.stat("memory_bandwidth"), 1555000000000ull));
        device.addStat(WireStat::uint64(dn.stat("memory_size"), kGpuMemoryBytes));
        device.addStat(WireStat::int64(dn.stat("compute_cap_major"), 8));
        device.addStat(WireStat::int64(dn.stat("compute_cap_minor"), 0));
        device.addStat(WireStat::str(dn.stat("device_vendor"), "Nvidia"));
    }

    void resolve(const std::vector<OpDesc>& ops, std::vector<ResolvedOp>& out, PlaneNames& host,
                 PlaneNames& device, int ordinal) {
        for (const OpDesc& d : ops) {
            ResolvedOp r;
            r.desc = &d;
            r.hostMeta = host.event(d.name);
            r.deviceMeta = device.event(d.name);
            r.tfOpRef = device.stat(d.name);
            const bool copy = d.work == OpWork::CopyIn || d.work == OpWork::CopyOut;
            r.launchMeta = host.event(copy ? "cudaMemcpyAsync" : "cudaLaunchKernel");
            if (copy) {
                r.kernels.push_back(
                    {device.event(d.work == OpWork::CopyIn ? "MemcpyH2D" : "MemcpyD2H"), 0,
                     double(d.copyBytes) / 24e3 + 3 /* 24 GB/s over PCIe 4 */});
                r.memcpyDetails = "size:" + std::to_string(d.copyBytes) +
                                  " dest:" + std::to_string(ordinal) + " async:1";
            }
            for (const KernelUse& k : d.kernels)
                r.kernels.push_back({device.event(k.spec->name),
                                     device.stat(kernelDetailsText(*k.spec, k.workItems)), k.us});
            out.push_back(std::move(r));
        }
    }

    void memoryEvent(GpuState& s, const MemAction& a, const std::string& op, double start,
                     double slot, int step, const HostStats& hs) {
        if (a.free)
            s.bytesInUse -= a.allocated;
        else
            s.bytesInUse += a.allocated;
        s.peakBytes = std::max(s.peakBytes, s.bytesInUse);
        const int64_t base = 0x7f4a00000000ll + (int64_t(s.ordinal) << 36);
        const WireStat stats[] = {
            WireStat::ref(hs.allocatorName, static_cast<uint64_t>(s.allocatorRef)),
            WireStat::int64(hs.bytesReserved, 0),
            WireStat::int64(hs.bytesAllocated, s.bytesInUse),
            WireStat::int64(hs.bytesAvailable, int64_t(kAllocatorLimit) - s.bytesInUse),
            WireStat::dbl(hs.fragmentation, rng_.between(0.0, 0.12)),
            WireStat::int64(hs.peakBytes, s.peakBytes),
            WireStat::int64(hs.requestedBytes, a.free ? 0 : a.requested),
            WireStat::int64(hs.allocationBytes, a.allocated),
            WireStat::int64(hs.addr, base + a.offset),
            WireStat::str(hs.tfOp, op),
            WireStat::str(hs.regionType, "output"),
            WireStat::int64(hs.dataType, a.dataType),
            WireStat::str(hs.shape, a.shape),
            WireStat::int64(hs.groupId, step),
        };
        s.thread->addEvent(a.free ? s.freeMeta : s.allocMeta, toNs(start),
                           toNs(slot * rng_.between(0.3, 0.6)), stats);
    }

    // Host side of each op on the GPU's launch thread, then its device work on the streams.
    void runOps(GpuState& s, const std::vector<ResolvedOp>& ops, int step, const HostStats& hs) {
        for (const ResolvedOp& op : ops) runOp(s, op, step, hs, nullptr);
    }

    // When a collective may start on this GPU, and when it ends on all of them.
    struct Collective {
        double ready, end;
    };

    void runOp(GpuState& s, const ResolvedOp& op, int step, const HostStats& hs,
               const Collective* collective) {
        const OpDesc& d = *op.desc;
        const double opStart = s.hostTime;
        const double hostBudget = us(d.hostUs * rng_.between(0.8, 1.3));
        // Children: allocations, launches, frees, spread evenly through the op.
        const size_t children = d.allocations.size() + op.kernels.size() + d.frees.size();
        const double slot = hostBudget / double(children + 1);
        double cursor = opStart + slot * 0.3;

        // Parent first: its extent is fixed up front so children nest inside.
        const WireStat group[] = {WireStat::int64(hs.groupId, step)};
        s.thread->addEvent(op.hostMeta, toNs(opStart), toNs(hostBudget), group);
        for (const MemAction& a : d.allocations) {
            memoryEvent(s, a, d.name, cursor, slot, step, hs);
            cursor += slot;
        }
        const bool copy = d.work == OpWork::CopyIn || d.work == OpWork::CopyOut;
        XLineWriter& stream = d.work == OpWork::CopyIn    ? *s.copyIn
                              : d.work == OpWork::CopyOut ? *s.copyOut
                                                          : *s.compute;
        double& streamFree = d.work == OpWork::CopyIn    ? s.copyInFree
                             : d.work == OpWork::CopyOut ? s.copyOutFree
                                                         : s.computeFree;
        double opDeviceStart = -1, opDeviceEnd = 0;
        for (const ResolvedKernel& k : op.kernels) {
            const uint64_t correlation = nextCorrelation_++;
            const double launchDur = slot * rng_.between(0.45, 0.7);
            const WireStat launchStats[] = {WireStat::uint64(hs.correlationId, correlation),
                                            WireStat::int64(hs.groupId, step)};
            s.thread->addEvent(op.launchMeta, toNs(cursor), toNs(launchDur), launchStats);

            // The kernel starts once launched and once the stream is free (the copy out waits
            // for the compute stream: the loss must be computed).
            double ready = std::max(cursor + us(rng_.between(2.5, 6)),
                                    streamFree + us(rng_.between(0.8, 2.5)));
            if (d.work == OpWork::CopyOut) ready = std::max(ready, s.computeFree + us(1));
            if (d.work != OpWork::CopyIn && s.copyInFree > 0)
                ready = std::max(ready, s.copyInFree + us(1));
            double dur = us(k.us * speed_ * rng_.between(0.93, 1.08));
            if (collective) {
                ready = std::max(ready, collective->ready);
                dur = std::max(collective->end - ready, us(5));
            }
            const int64_t startNs = toNs(ready);
            const int64_t durNs = std::max<int64_t>(1000, toNs(dur));
            if (copy) {
                const WireStat stats[] = {WireStat::uint64(s.deviceStatCorrelation, correlation),
                                          WireStat::str(s.deviceStatMemcpy, op.memcpyDetails),
                                          WireStat::ref(s.deviceStatTfOp, uint64_t(op.tfOpRef)),
                                          WireStat::int64(s.deviceStatGroup, step)};
                stream.addEvent(k.meta, startNs, durNs, stats);
            } else {
                const WireStat stats[] = {
                    WireStat::uint64(s.deviceStatCorrelation, correlation),
                    WireStat::ref(s.deviceStatKernelDetails, uint64_t(k.details)),
                    WireStat::ref(s.deviceStatTfOp, uint64_t(op.tfOpRef)),
                    WireStat::int64(s.deviceStatGroup, step)};
                stream.addEvent(k.meta, startNs, durNs, stats);
            }
            streamFree = double(startNs + durNs);
            if (opDeviceStart < 0) opDeviceStart = double(startNs);
            opDeviceEnd = streamFree;
            cursor += slot;
        }
        for (const MemAction& a : d.frees) {
            memoryEvent(s, a, d.name, cursor, slot, step, hs);
            cursor += slot;
        }
        if (opDeviceStart >= 0) {
            s.tfOps->addEvent(op.deviceMeta, toNs(opDeviceStart),
                              toNs(opDeviceEnd) - toNs(opDeviceStart));
            if (s.stepFirstDeviceStart < 0) s.stepFirstDeviceStart = opDeviceStart;
            s.stepLastDeviceEnd = std::max(s.stepLastDeviceEnd, opDeviceEnd);
        }
        s.hostTime = opStart + hostBudget + us(rng_.between(0.8, 4));
    }

    // NCCL all-reduce: each GPU's kernel starts when that GPU gets there and ends together, when
    // the slowest one has arrived.
    void allReduce(std::vector<GpuState>& gpus, int step, const HostStats& hs) {
        // A GPU arrives once its launch thread and its compute stream are both there.
        std::vector<double> arrival;
        double lastArrival = 0;
        for (const GpuState& s : gpus) {
            arrival.push_back(std::max(s.hostTime + us(12), s.computeFree + us(2)));
            lastArrival = std::max(lastArrival, arrival.back());
        }
        for (GpuState& s : gpus) {
            for (const ResolvedOp& op : s.allReduce) {
                double us0 = 0;
                for (const ResolvedKernel& k : op.kernels) us0 += k.us;
                const Collective c{arrival[s.ordinal],
                                   lastArrival + us(us0 * speed_ * rng_.between(0.98, 1.02))};
                runOp(s, op, step, hs, &c);
            }
        }
    }

    std::string hostName_;
    Rng rng_;
    int gpus_ = 1;
    Sizing sizing_;
    double speed_ = 1;
    int64_t startNs_ = kBaseEpochNs;
    uint64_t nextCorrelation_ = 1000;
    std::vector<StepOps> plans_;
};

} // namespace

std::vector<uint8_t> generateSyntheticXSpace(const SyntheticOptions& options,
                                             const std::string& hostName) {
    XSpaceWriter writer;
    HostGenerator(options, hostName).generate(writer);
    return writer.finish();
}

std::string writeSyntheticXSpace(const SyntheticOptions& options, const std::string& hostName,
                                 const std::string& path) {
    namespace fs = std::filesystem;
    const fs::path file(path);
    const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
    // Events stream to a temporary file beside the output as they are generated, so memory
    // stays flat at any size (the disk briefly holds the profile twice).
    std::string spillError;
    const std::unique_ptr<SpillFile> spill = SpillFile::create(folder.string(), spillError);
    if (!spill) return spillError;
    XSpaceWriter writer;
    writer.spillTo(spill.get());
    try {
        HostGenerator(options, hostName).generate(writer);
    } catch (const std::bad_alloc&) {
        return "not enough memory to generate " + std::to_string(options.events) + " events for " +
               path;
    }
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(path.c_str(), "wb"),
                                                        &std::fclose);
    if (!out) return "cannot write " + path + ": " + std::strerror(errno);
    const bool written = writer.finish([&](const uint8_t* data, size_t size) {
        return std::fwrite(data, 1, size, out.get()) == size;
    });
    if (!spill->error().empty()) return spill->error();
    if (!written || std::fclose(out.release()) != 0)
        return "cannot write " + path + ": " + std::strerror(errno);
    return {};
}

std::string writeSyntheticLogDir(const SyntheticOptions& options, int hosts,
                                 const std::string& logDir, const std::string& runName) {
    namespace fs = std::filesystem;
    const fs::path run = fs::path(logDir) / "plugins" / "profile" / runName;
    std::error_code ec;
    fs::create_directories(run, ec);
    if (ec) return "cannot create folder " + run.string() + ": " + ec.message();
    for (int h = 0; h < hosts; ++h) {
        const std::string host = "worker" + std::to_string(h);
        const std::string error =
            writeSyntheticXSpace(options, host, (run / (host + ".xplane.pb")).string());
        if (!error.empty()) return error;
    }
    return {};
}

} // namespace stepscope
