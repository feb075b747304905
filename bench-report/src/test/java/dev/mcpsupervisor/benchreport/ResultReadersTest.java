package dev.mcpsupervisor.benchreport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultReadersTest {

  private final ObjectMapper json = new ObjectMapper();

  @Test
  void compareResultsSkipCellsNotRunAndLeaveGapsForMissingMetrics() throws Exception {
    CompareResults results = CompareResults.read(ChartsSmokeTest.resource("compare-sample.json"));

    assertEquals(List.of("direct", "supervisor-stdio", "mcp-proxy"), results.seriesNames());
    assertEquals(List.of(10, 100), results.sessionCounts());
    assertEquals(
        List.of(4000.0, 4500.0), results.values("direct", CompareResults.Cell::callsPerSecond));
    assertEquals(
        Arrays.asList(1500.0, null),
        results.values("mcp-proxy", CompareResults.Cell::callsPerSecond));
    assertEquals(
        Arrays.asList(null, null),
        results.values("mcp-proxy", CompareResults.Cell::cpuMicrosPerCall));
  }

  @Test
  void compareResultsNameTheEraWhenARunHasTwo() throws Exception {
    CompareResults results =
        CompareResults.parse(
            json.readTree(
                """
                {"rows": [
                  {"target": "direct", "sessions": 10, "era": "session", "median": {"callsPerSecond": 1}},
                  {"target": "direct", "sessions": 10, "era": "stateless", "median": {"callsPerSecond": 2}}]}
                """));

    assertEquals(List.of("direct (session)", "direct (stateless)"), results.seriesNames());
    assertEquals(
        List.of(2.0), results.values("direct (stateless)", CompareResults.Cell::callsPerSecond));
  }

  @Test
  void compareResultsRejectAnotherFile() throws Exception {
    assertThrows(
        IllegalArgumentException.class,
        () -> CompareResults.parse(json.readTree("{\"runs\": []}")));
  }

  @Test
  void chaosTimelineToleratesNestingOtherTimeKeysAndKillObjects() throws Exception {
    ChaosTimeline chaos =
        ChaosTimeline.parse(
            json.readTree(
                """
                {"target": "x", "chaos": {
                  "timeline": [{"t": 5, "ok": 3}, {"failed": 2}],
                  "kills": [{"second": 6, "pid": 42}, 7.5, {"pid": 1}]}}
                """));

    assertEquals(
        List.of(new ChaosTimeline.Second(5, 3, 0), new ChaosTimeline.Second(1, 0, 2)),
        chaos.timeline());
    assertEquals(List.of(6.0, 7.5), chaos.kills());
  }

  @Test
  void chaosTimelineRejectsAFileWithoutOne() throws Exception {
    assertThrows(
        IllegalArgumentException.class, () -> ChaosTimeline.parse(json.readTree("{\"rows\": []}")));
  }
}
