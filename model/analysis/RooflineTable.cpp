#include "model/analysis/RooflineTable.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "model/Json.h"

namespace stepscope {

namespace {

double orMissing(const std::optional<double>& v) {
    return v ? *v : Table::missing();
}

double percent(const std::optional<double>& share) {
    return share ? *share * 100 : Table::missing();
}

Table emptyTable() {
    using T = Table::Type;
    using F = ColumnFormat;
    Table t;
    t.addColumn("Step", T::Text, F::Plain, "\"Total\": the whole profile; else the step number");
    t.addColumn("Device", T::Text);
    t.addColumn("Program", T::Text, F::Plain, "The XLA module and its program id");
    t.addColumn("Category", T::Text);
    t.addColumn("Operation", T::Text, F::Plain,
                "The HLO instruction or PyTorch operator; \"Program\" rows sum a program's ops");
    t.addColumn("Shape", T::Text, F::Plain,
                "HLO: the result's shape; PyTorch: the operator's \"Input Dims\"");
    t.addColumn("Framework op", T::Text, F::Plain,
                "JAX/TensorFlow: the op path (op_name); PyTorch: the enclosing operators");
    t.addColumn("Occurrences", T::Int);
    t.addColumn("Self time (µs)", T::Double, F::Microseconds);
    t.addColumn("Self time (%)", T::Double, F::Percent, "Of the device time of the step");
    t.addColumn("FLOPs", T::Double, F::Si,
                "Floating-point operations, summed over occurrences; empty where the cost "
                "model cannot tell");
    t.addColumn("Transcendentals", T::Double, F::Si,
                "exp, log, tanh, ... counted apart from FLOPs, as XLA does");
    t.addColumn("Bytes accessed", T::Double, F::Bytes, "Bytes read plus written");
    t.addColumn("FLOP/s", T::Double, F::Si, "FLOPs / self time");
    t.addColumn("Bytes/s", T::Double, F::Si, "Bytes accessed / self time");
    t.addColumn("Operational intensity (FLOP/byte)", T::Double);
    t.addColumn("Precision", T::Text);
    t.addColumn("Compute roof (FLOP/s)", T::Double, F::Si,
                "The device's peak for the op's precision, on Tensor Cores where it uses them");
    t.addColumn("FLOP/s of roof (%)", T::Double, F::Percent);
    t.addColumn("Memory roof (Bytes/s)", T::Double, F::Si, "The device's memory bandwidth");
    t.addColumn("Bytes/s of roof (%)", T::Double, F::Percent);
    t.addColumn("Bound by", T::Text, F::Plain,
                "The roof the op is closest to; Latency: under 10% of both");
    t.addColumn("Source", T::Text);
    return t;
}

void addRow(Table& t, const std::string& step, const Roofline& r, const RooflineOp* op,
            uint32_t device, const std::string& program, const RooflineSum& sum,
            int64_t stepTimePs) {
    const RooflineMetrics m = rooflineMetrics(sum);
    const bool programRow = op == nullptr;
    const bool singleKnownFlops = sum.flopsKnown > 0 && (programRow || sum.flopsKnown == sum.cells);
    const bool singleKnownBytes = sum.bytesKnown > 0 && (programRow || sum.bytesKnown == sum.cells);
    t.addRow({step,
              r.devices[device].device,
              program,
              programRow ? std::string("Program") : op->category,
              programRow ? std::string("Program") : op->name,
              programRow ? std::string() : op->shape,
              programRow ? std::string() : op->frameworkOp,
              int64_t(sum.occurrences),
              double(sum.timePs) / 1e6,
              stepTimePs > 0 ? 100.0 * double(sum.timePs) / double(stepTimePs) : Table::missing(),
              singleKnownFlops ? sum.flops : Table::missing(),
              singleKnownFlops ? sum.transcendentals : Table::missing(),
              singleKnownBytes ? sum.bytes : Table::missing(),
              singleKnownFlops ? orMissing(m.flopsPerSecond) : Table::missing(),
              singleKnownBytes ? orMissing(m.bytesPerSecond) : Table::missing(),
              singleKnownFlops && singleKnownBytes ? orMissing(m.intensity) : Table::missing(),
              programRow ? std::string() : std::string(precisionName(op->precision)),
              m.computeRoof > 0 ? m.computeRoof : Table::missing(),
              singleKnownFlops ? percent(m.computeShare) : Table::missing(),
              m.memoryRoof > 0 ? m.memoryRoof : Table::missing(),
              singleKnownBytes ? percent(m.memoryShare) : Table::missing(),
              std::string(boundByName(m.bound)),
              programRow ? std::string() : op->source});
}

void appendStep(RooflineTable& out, const Roofline& r, int32_t step) {
    const std::vector<const RooflineCell*> cells = r.cellsOf(step);
    const std::string stepText =
        step < 0 ? std::string("Total") : std::to_string(r.steps[size_t(step)].number);
    int64_t stepTime = 0;
    // (device, program) -> the group's cells
    std::map<std::pair<uint32_t, std::string>, std::vector<const RooflineCell*>> groups;
    for (const RooflineCell* c : cells) {
        stepTime += c->timePs;
        const RooflineOp& op = r.ops[c->op];
        groups[{op.device, programOf(op)}].push_back(c);
    }
    struct Group {
        uint32_t device;
        std::string program;
        std::vector<const RooflineCell*> cells;
        int64_t timePs = 0;
    };
    std::vector<Group> ordered;
    for (auto& [key, list] : groups) {
        Group g{key.first, key.second, std::move(list), 0};
        for (const RooflineCell* c : g.cells) g.timePs += c->timePs;
        std::stable_sort(g.cells.begin(), g.cells.end(),
                         [&](const RooflineCell* a, const RooflineCell* b) {
                             if (a->timePs != b->timePs) return a->timePs > b->timePs;
                             return r.ops[a->op].name < r.ops[b->op].name;
                         });
        ordered.push_back(std::move(g));
    }
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Group& a, const Group& b) { return a.timePs > b.timePs; });
    for (const Group& g : ordered) {
        RooflineSum program;
        for (const RooflineCell* c : g.cells) program.add(r, *c);
        addRow(out.table, stepText, r, nullptr, g.device, g.program, program, stepTime);
        out.cellOfRow.push_back(-1);
        out.longestOfRow.push_back(program.longest);
        for (const RooflineCell* c : g.cells) {
            RooflineSum one;
            one.add(r, *c);
            addRow(out.table, stepText, r, &r.ops[c->op], g.device, g.program, one, stepTime);
            out.cellOfRow.push_back(int64_t(c - r.cells.data()));
            out.longestOfRow.push_back(c->longest);
        }
    }
}

} // namespace

RooflineTable rooflineTable(const Roofline& r, int32_t step) {
    RooflineTable out{emptyTable(), {}, {}};
    appendStep(out, r, step);
    return out;
}

Table rooflineTableAllSteps(const Roofline& r) {
    RooflineTable out{emptyTable(), {}, {}};
    appendStep(out, r, -1);
    for (size_t s = 0; s < r.steps.size(); ++s) appendStep(out, r, int32_t(s));
    return std::move(out.table);
}

std::string rooflineJson(const Roofline& r) {
    JsonWriter j;
    j.beginObject().field("tool", "roofline");
    j.key("devices").beginArray();
    for (const DevicePeaks& d : r.devices) {
        j.beginObject()
            .field("device", d.device)
            .field("architecture", d.architecture)
            .field("units", d.units)
            .field("clock_hz", d.clockHz)
            .field("memory_bytes_per_second", d.memoryBytesPerSecond);
        j.key("peak_flops_per_second").beginObject();
        for (const auto& [unit, rates] : {std::pair{"matrix_units", &d.matrixFlops},
                                          std::pair{"vector_units", &d.vectorFlops}}) {
            j.key(unit).beginObject();
            for (size_t p = 0; p < kPrecisionCount; ++p)
                if ((*rates)[p] > 0) j.field(precisionName(Precision(p)), (*rates)[p]);
            j.endObject();
        }
        j.endObject();
        j.field("source", d.source).endObject();
    }
    j.endArray();
    j.key("steps").beginArray();
    for (const RooflineStep& s : r.steps)
        j.beginObject()
            .field("number", s.number)
            .field("begin_ps", s.beginPs)
            .field("duration_ps", s.durationPs)
            .endObject();
    j.endArray();
    j.key("notes").beginArray();
    for (const std::string& n : r.notes) j.value(n);
    j.endArray();
    j.key("rows").table(rooflineTable(r, -1).table);
    j.endObject();
    return j.take();
}

} // namespace stepscope
