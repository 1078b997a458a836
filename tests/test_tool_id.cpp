// The tool keys and finding levels: the one table behind the command line, the JSON files and the
// Tool selector. The keys are the outside contract (--screenshot ID, export TOOL, "tool" and
// "level" in JSON), so they are spelled out here as users type them.
#include <QtTest>
#include <set>
#include <string>

#include "model/ToolId.h"
#include "model/analysis/Level.h"

using namespace stepscope;

class TestToolId : public QObject {
    Q_OBJECT

    // Every tool, in the Tool selector's order, as the README and docs/cli.md name them.
    const std::vector<std::pair<ToolId, std::string>> expected_{
        {ToolId::Summary, "summary"},
        {ToolId::Overview, "overview"},
        {ToolId::InputPipeline, "input_pipeline"},
        {ToolId::TraceViewer, "trace_viewer"},
        {ToolId::TfStats, "tf_stats"},
        {ToolId::KernelStats, "kernel_stats"},
        {ToolId::OpProfile, "op_profile"},
        {ToolId::RooflineModel, "roofline_model"},
        {ToolId::PyTorch, "pytorch"},
        {ToolId::MemoryProfile, "memory_profile"},
        {ToolId::PodViewer, "pod_viewer"},
        {ToolId::TfDataBottleneck, "tf_data_bottleneck"},
        {ToolId::RunDiff, "run_diff"},
    };

private slots:
    void keysAreTheDocumentedOnes() {
        for (const auto& [tool, key] : expected_) QCOMPARE(std::string(toolKey(tool)), key);
    }

    void everyKeyRoundTrips() {
        for (const auto& [tool, key] : expected_) {
            const std::optional<ToolId> back = toolFromKey(toolKey(tool));
            QVERIFY2(back == tool, key.c_str());
        }
    }

    void keysAreUnique() {
        std::set<std::string_view> keys;
        for (const auto& [tool, key] : expected_) keys.insert(toolKey(tool));
        QCOMPARE(keys.size(), expected_.size());
    }

    void unknownKeysAreNone() {
        for (const char* key : {"", "Trace_viewer", "trace_viewer ", "trace", "roofline",
                                "memory_viewer", "tensorflow_stats", "trace_viewer\n"})
            QVERIFY2(!toolFromKey(key), key);
    }

    void levelKeys() {
        QCOMPARE(std::string(levelKey(Level::High)), std::string("high"));
        QCOMPARE(std::string(levelKey(Level::Moderate)), std::string("moderate"));
        QCOMPARE(std::string(levelKey(Level::Info)), std::string("info"));
    }
};

QTEST_GUILESS_MAIN(TestToolId)
#include "test_tool_id.moc"
