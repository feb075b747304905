package dev.mcpsupervisor.app.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.app.bench.LatencyStats;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The figures of one scenario run, from its calls and events: outcomes by kind, calls past their
 * deadline, failed read-only calls, calls in flight at each disruption, time from each kill to the
 * next successful call, leaked processes, and a per-second timeline. Plain data, no I/O but
 * printing.
 *
 * @param leaked upstream processes of the gateway still alive after the run that the gateway no
 *     longer lists
 * @param leftAfterStop processes still alive after the gateway itself stopped (the runner then
 *     killed them)
 */
record ChaosReport(
    String scenario,
    String upstream,
    int sessions,
    Duration duration,
    Duration deadline,
    List<CallRecord> calls,
    List<ChaosEvent> events,
    int connectFailures,
    int leaked,
    int leftAfterStop) {

  /** A call is past its deadline when it took longer than the deadline plus this. */
  static final Duration GRACE = Duration.ofSeconds(1);

  private static final ObjectMapper JSON = new ObjectMapper();

  ChaosReport {
    calls = List.copyOf(calls);
    events = List.copyOf(events);
  }

  /**
   * The targets: failures only retryable "session lost" and no more than the calls in
   * flight at the kills, no failed read-only call (the hang scenario: calls fail by timeout, none
   * of these apply), none past its deadline, no process leaked or left.
   */
  boolean metTargets() {
    boolean hang = scenario.equals(Scenario.HANG.flag());
    boolean failuresExplained =
        hang
            || (failedOtherThanRetryableSessionLost() == 0
                && failed() <= inFlightAtKills()
                && failedReadOnly() == 0);
    return failuresExplained && pastDeadline() == 0 && leaked == 0 && leftAfterStop == 0;
  }

  long ok() {
    return calls.stream().filter(CallRecord::ok).count();
  }

  long failed() {
    return calls.size() - ok();
  }

  long pastDeadline() {
    long limit = deadline.plus(GRACE).toMillis();
    return calls.stream().filter(call -> call.millis() > limit).count();
  }

  long failedReadOnly() {
    return calls.stream().filter(call -> call.readOnly() && !call.ok()).count();
  }

  long readOnlyCalls() {
    return calls.stream().filter(CallRecord::readOnly).count();
  }

  /** Failures that are not "session lost" with retryable: true. */
  long failedOtherThanRetryableSessionLost() {
    return calls.stream()
        .filter(call -> !call.ok())
        .filter(call -> !("session_lost".equals(call.kind()) && call.retryable()))
        .count();
  }

  Map<String, Long> failedByKind() {
    return kinds(calls);
  }

  Map<String, Long> failedReadOnlyByKind() {
    return kinds(calls.stream().filter(CallRecord::readOnly).toList());
  }

  private static Map<String, Long> kinds(List<CallRecord> calls) {
    Map<String, Long> kinds = new TreeMap<>();
    calls.stream()
        .filter(call -> !call.ok())
        .forEach(call -> kinds.merge(call.kind(), 1L, Long::sum));
    return kinds;
  }

  int inFlightAtKills() {
    return events.stream()
        .filter(event -> event.kind().equals(ChaosEvent.KILL))
        .mapToInt(ChaosEvent::inFlight)
        .sum();
  }

  /**
   * Per kill (or SIGCONT): milliseconds until the first ok answer to a call started at or after it;
   * a disruption with no such answer in the run is left out.
   */
  LatencyStats recoveryMillis() {
    long[] recoveries =
        events.stream()
            .filter(
                event ->
                    event.kind().equals(ChaosEvent.KILL) || event.kind().equals(ChaosEvent.SIGSTOP))
            .mapToLong(this::nextSuccessAfter)
            .filter(millis -> millis >= 0)
            .toArray();
    return LatencyStats.of(recoveries);
  }

  private long nextSuccessAfter(ChaosEvent event) {
    return calls.stream()
        .filter(CallRecord::ok)
        .filter(call -> call.startMillis() >= event.atMillis())
        .mapToLong(call -> call.endMillis() - event.atMillis())
        .min()
        .orElse(-1);
  }

  ObjectNode json() {
    ObjectNode root = JSON.createObjectNode();
    root.put("scenario", scenario);
    root.put("upstream", upstream);
    root.put("sessions", sessions);
    root.put("seconds", duration.toSeconds());
    root.put("deadlineMillis", deadline.toMillis());
    root.put("calls", calls.size());
    root.put("ok", ok());
    root.put("failed", failed());
    root.putPOJO("failedByKind", failedByKind());
    root.put("failedNotRetryableSessionLost", failedOtherThanRetryableSessionLost());
    root.put("pastDeadline", pastDeadline());
    root.put("readOnlyCalls", readOnlyCalls());
    root.put("failedReadOnly", failedReadOnly());
    root.putPOJO("failedReadOnlyByKind", failedReadOnlyByKind());
    root.put("inFlightAtKills", inFlightAtKills());
    root.put("connectFailures", connectFailures);
    LatencyStats recovery = recoveryMillis();
    ObjectNode recoveryJson = root.putObject("killToNextSuccessMillis");
    recoveryJson.put("count", recovery.count());
    recoveryJson.put("p50", recovery.p50());
    recoveryJson.put("p99", recovery.p99());
    recoveryJson.put("max", recovery.max());
    root.put("leakedProcesses", leaked);
    root.put("leftAfterStop", leftAfterStop);
    ArrayNode eventsJson = root.putArray("events");
    for (ChaosEvent event : events) {
      ObjectNode entry = eventsJson.addObject();
      entry.put("atMillis", event.atMillis());
      entry.put("kind", event.kind());
      entry.put("inFlight", event.inFlight());
      event.pids().forEach(entry.putArray("pids")::add);
    }
    ArrayNode timeline = root.putArray("timeline");
    for (Second second : timeline()) {
      ObjectNode entry = timeline.addObject();
      entry.put("second", second.second);
      entry.put("ok", second.ok);
      entry.put("failed", second.failed);
      second.events.forEach(entry.putArray("events")::add);
    }
    return root;
  }

  void printText(PrintWriter out) {
    LatencyStats recovery = recoveryMillis();
    out.printf(
        "%-13s calls %d: ok %d, failed %d %s, past deadline %d, read-only failed %d %s of %d,"
            + " in flight at kills %d, kill->next ok p50 %d ms p99 %d ms (%d), leaked %d,"
            + " left after stop %d%n",
        scenario,
        calls.size(),
        ok(),
        failed(),
        failedByKind(),
        pastDeadline(),
        failedReadOnly(),
        failedReadOnlyByKind(),
        readOnlyCalls(),
        inFlightAtKills(),
        recovery.p50(),
        recovery.p99(),
        recovery.count(),
        leaked,
        leftAfterStop);
  }

  /** One second of the run, by when calls ended. */
  private static final class Second {
    final long second;
    long ok;
    long failed;
    final List<String> events = new java.util.ArrayList<>();

    Second(long second) {
      this.second = second;
    }
  }

  private List<Second> timeline() {
    int seconds = Math.toIntExact(duration.toSeconds() + deadline.toSeconds() + 2);
    List<Second> timeline = new java.util.ArrayList<>();
    for (int second = 0; second < seconds; second++) {
      timeline.add(new Second(second));
    }
    long last = 0;
    for (CallRecord call : calls) {
      Second second = timeline.get(Math.min(seconds - 1, (int) (call.endMillis() / 1000)));
      if (call.ok()) {
        second.ok++;
      } else {
        second.failed++;
      }
      last = Math.max(last, second.second);
    }
    for (ChaosEvent event : events) {
      timeline.get(Math.min(seconds - 1, (int) (event.atMillis() / 1000))).events.add(event.kind());
    }
    return timeline.subList(0, (int) Math.max(last + 1, Math.min(seconds, duration.toSeconds())));
  }
}
