package dev.mcpsupervisor.app.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChaosReportTest {

  private static final Duration DEADLINE = Duration.ofSeconds(5);

  private static ChaosReport report(List<CallRecord> calls, List<ChaosEvent> events) {
    return new ChaosReport(
        "kill", "fixture (stdio)", 2, Duration.ofSeconds(3), DEADLINE, calls, events, 0, 0, 0);
  }

  @Test
  void countsOutcomesDeadlinesReadOnlyFailuresAndRecoveryAfterEachKill() {
    List<CallRecord> calls =
        List.of(
            new CallRecord(0, 100, false, CallRecord.OK, false),
            new CallRecord(900, 1_100, false, "session_lost", true),
            new CallRecord(950, 1_200, true, "timeout", false),
            new CallRecord(1_000, 1_400, false, CallRecord.OK, false),
            new CallRecord(1_050, 1_300, false, CallRecord.OK, false),
            new CallRecord(1_500, 1_500 + 6_001, false, "client_timeout", false));
    ChaosReport report =
        report(calls, List.of(new ChaosEvent(1_000, ChaosEvent.KILL, List.of(42L), 2)));

    assertEquals(3, report.ok());
    assertEquals(3, report.failed());
    assertEquals(
        Map.of("session_lost", 1L, "timeout", 1L, "client_timeout", 1L), report.failedByKind());
    assertEquals(1, report.pastDeadline());
    assertEquals(1, report.failedReadOnly());
    assertEquals(2, report.failedOtherThanRetryableSessionLost());
    assertEquals(2, report.inFlightAtKills());
    // the first ok call started at or after the kill ended at 1,300: 300 ms
    assertEquals(300, report.recoveryMillis().p50());
    assertFalse(report.metTargets());
  }

  @Test
  void onlyRetryableSessionLostFailuresOfCallsInFlightMeetTheTargets() {
    List<CallRecord> calls =
        List.of(
            new CallRecord(900, 1_100, false, "session_lost", true),
            new CallRecord(1_000, 1_400, true, CallRecord.OK, false));
    ChaosReport report =
        report(calls, List.of(new ChaosEvent(1_000, ChaosEvent.KILL, List.of(42L), 1)));

    assertTrue(report.metTargets());
  }

  @Test
  void theTimelineCountsCallsByTheSecondTheyEndedAndMarksEvents() {
    List<CallRecord> calls =
        List.of(
            new CallRecord(0, 100, false, CallRecord.OK, false),
            new CallRecord(900, 1_100, false, "session_lost", true),
            new CallRecord(1_000, 2_400, false, CallRecord.OK, false));
    JsonNode json =
        new ObjectMapper()
            .valueToTree(
                report(calls, List.of(new ChaosEvent(1_000, ChaosEvent.KILL, List.of(7L), 1)))
                    .json());

    JsonNode timeline = json.path("timeline");
    assertEquals(3, timeline.size(), timeline.toString());
    assertEquals(1, timeline.path(0).path("ok").asInt());
    assertEquals(1, timeline.path(1).path("failed").asInt());
    assertEquals("kill", timeline.path(1).path("events").path(0).asText());
    assertEquals(1, timeline.path(2).path("ok").asInt());
    assertEquals(7, json.path("events").path(0).path("pids").path(0).asLong());
  }
}
