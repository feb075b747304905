package dev.mcpsupervisor.http.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RecentCallsTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final RecentCalls calls = new RecentCalls(now::get);

  @Test
  void ratesErrorsAndQuantilesOverTheWindow() {
    calls.servers(List.of("demo", "other"));
    for (int i = 0; i < 98; i++) {
      calls.record("demo", 2_000_000, false); // 2 ms
    }
    calls.record("demo", 900_000_000, true); // 900 ms, failed
    calls.record("demo", 900_000_000, true);
    RecentCalls.Summary demo = calls.summaries().get("demo");
    assertEquals(100.0 / RecentCalls.WINDOW.toSeconds(), demo.callsPerSecond(), 1e-9);
    assertEquals(0.02, demo.errorRate(), 1e-9);
    assertBetween(2, 2 * 1.42, demo.p50Millis());
    assertBetween(900, 900 * 1.42, demo.p99Millis());
    assertEquals(10.0, demo.rates()[RecentCalls.SLOTS - 1], 1e-9, "100 calls in this 10 s slot");
    assertEquals(0, calls.summaries().get("other").callsPerSecond());
    assertEquals(List.of("demo", "other"), List.copyOf(calls.summaries().keySet()));
  }

  @Test
  void oldSlotsLeaveTheWindowAndSlotsAreCharted() {
    calls.servers(List.of("demo"));
    calls.record("demo", 1_000_000, false);
    now.addAndGet(RecentCalls.SLOT.toMillis());
    calls.record("demo", 1_000_000, false);
    calls.record("demo", 1_000_000, false);
    double[] rates = calls.summaries().get("demo").rates();
    assertEquals(0.1, rates[RecentCalls.SLOTS - 2], 1e-9);
    assertEquals(0.2, rates[RecentCalls.SLOTS - 1], 1e-9);

    now.addAndGet(RecentCalls.WINDOW.toMillis() - RecentCalls.SLOT.toMillis());
    RecentCalls.Summary later = calls.summaries().get("demo");
    assertEquals(2.0 / RecentCalls.WINDOW.toSeconds(), later.callsPerSecond(), 1e-9, "first gone");
    now.addAndGet(RecentCalls.SLOT.toMillis());
    assertEquals(0, calls.summaries().get("demo").callsPerSecond(), "all gone");
    assertEquals(0, calls.summaries().get("demo").p99Millis());
  }

  @Test
  void aServerNotConfiguredIsNotCounted() {
    calls.servers(List.of("demo"));
    calls.record("made-up-by-a-caller", 1_000_000, true);
    assertEquals(List.of("demo"), List.copyOf(calls.summaries().keySet()));
  }

  @Test
  void bucketsCoverMicrosecondsToMinutes() {
    assertEquals(0, RecentCalls.bucketOf(0));
    assertEquals(0, RecentCalls.bucketOf(100));
    assertEquals(1, RecentCalls.bucketOf(101));
    long last = RecentCalls.BOUNDS_MICROS[RecentCalls.BOUNDS_MICROS.length - 1];
    assertTrue(last >= 120_000_000L, "beyond two minutes: " + last);
    assertEquals(RecentCalls.BOUNDS_MICROS.length, RecentCalls.bucketOf(last + 1));
  }

  private static void assertBetween(double low, double high, double actual) {
    assertTrue(actual >= low && actual <= high, actual + " not in [" + low + ", " + high + "]");
  }
}
