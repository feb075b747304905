package dev.mcpsupervisor.http.ops;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Per configured server, the calls of the last {@link #WINDOW}: {@link #SLOTS} slots of {@link
 * #SLOT} each, with a count, an error count and a latency histogram per slot. What the operations
 * page shows as calls/s, error rate, p50 and p99, and charts; Prometheus keeps the totals. Servers
 * are the configured ones only (a caller can name any server; those are not counted here).
 * Thread-safe: one lock per server, none across them.
 */
public final class RecentCalls {

  public static final Duration SLOT = Duration.ofSeconds(10);
  public static final int SLOTS = 30;
  public static final Duration WINDOW = SLOT.multipliedBy(SLOTS);

  /**
   * Upper bounds of the latency buckets, in microseconds: 100 µs × √2^k up to about 2 minutes, so a
   * quantile is within 41% of the truth; the last bucket takes everything slower.
   */
  static final long[] BOUNDS_MICROS = bounds();

  /** Replaced whole when servers are added, read without a lock: every call looks it up. */
  private volatile Map<String, Window> servers = Map.of();

  private final LongSupplier clockMillis;

  public RecentCalls() {
    this(System::currentTimeMillis);
  }

  RecentCalls(LongSupplier clockMillis) {
    this.clockMillis = clockMillis;
  }

  /** The servers counted, in this order on the page. Called before any call is recorded. */
  public synchronized void servers(Iterable<String> names) {
    Map<String, Window> added = new LinkedHashMap<>(servers);
    names.forEach(name -> added.putIfAbsent(name, new Window()));
    servers = Collections.unmodifiableMap(added);
  }

  public void record(String server, long nanos, boolean failed) {
    Window window = servers.get(server);
    if (window != null) {
      window.record(clockMillis.getAsLong() / SLOT.toMillis(), nanos / 1_000, failed);
    }
  }

  /** Every configured server's summary over the window, in configuration order. */
  public Map<String, Summary> summaries() {
    long slot = clockMillis.getAsLong() / SLOT.toMillis();
    Map<String, Summary> summaries = new LinkedHashMap<>();
    servers.forEach((name, window) -> summaries.put(name, window.summary(slot)));
    return summaries;
  }

  /**
   * @param callsPerSecond over the whole window
   * @param errorRate failed calls ÷ calls over the window; 0 without calls
   * @param p50Millis median latency over the window (a bucket's upper bound); 0 without calls
   * @param p99Millis 99th percentile the same way
   * @param rates calls/s per slot, oldest first ({@link #SLOTS} values)
   * @param p99s p99 in milliseconds per slot, oldest first, 0 for a slot without calls
   */
  public record Summary(
      double callsPerSecond,
      double errorRate,
      double p50Millis,
      double p99Millis,
      double[] rates,
      double[] p99s) {}

  /** One server's slots, a ring indexed by slot number. */
  private static final class Window {
    private final long[] slotOf = new long[SLOTS];
    private final long[] calls = new long[SLOTS];
    private final long[] errors = new long[SLOTS];
    private final long[][] buckets = new long[SLOTS][BOUNDS_MICROS.length + 1];

    Window() {
      java.util.Arrays.fill(slotOf, -1);
    }

    synchronized void record(long slot, long micros, boolean failed) {
      int index = (int) (slot % SLOTS);
      if (slotOf[index] != slot) {
        slotOf[index] = slot;
        calls[index] = 0;
        errors[index] = 0;
        java.util.Arrays.fill(buckets[index], 0);
      }
      calls[index]++;
      if (failed) {
        errors[index]++;
      }
      buckets[index][bucketOf(micros)]++;
    }

    synchronized Summary summary(long currentSlot) {
      long total = 0;
      long failed = 0;
      long[] merged = new long[BOUNDS_MICROS.length + 1];
      double[] rates = new double[SLOTS];
      double[] p99s = new double[SLOTS];
      double seconds = SLOT.toSeconds();
      for (int age = SLOTS - 1; age >= 0; age--) {
        long slot = currentSlot - age;
        int index = (int) Math.floorMod(slot, (long) SLOTS);
        if (slot < 0 || slotOf[index] != slot) {
          continue;
        }
        int position = SLOTS - 1 - age;
        rates[position] = calls[index] / seconds;
        p99s[position] = quantileMillis(buckets[index], calls[index], 0.99);
        total += calls[index];
        failed += errors[index];
        for (int b = 0; b < merged.length; b++) {
          merged[b] += buckets[index][b];
        }
      }
      return new Summary(
          total / (double) WINDOW.toSeconds(),
          total == 0 ? 0 : failed / (double) total,
          quantileMillis(merged, total, 0.5),
          quantileMillis(merged, total, 0.99),
          rates,
          p99s);
    }
  }

  static int bucketOf(long micros) {
    for (int b = 0; b < BOUNDS_MICROS.length; b++) {
      if (micros <= BOUNDS_MICROS[b]) {
        return b;
      }
    }
    return BOUNDS_MICROS.length;
  }

  /** The upper bound of the bucket the {@code q} quantile falls in; the last bound if beyond. */
  static double quantileMillis(long[] buckets, long count, double q) {
    if (count == 0) {
      return 0;
    }
    long rank = (long) Math.ceil(q * count);
    long seen = 0;
    for (int b = 0; b < buckets.length; b++) {
      seen += buckets[b];
      if (seen >= rank) {
        return BOUNDS_MICROS[Math.min(b, BOUNDS_MICROS.length - 1)] / 1000.0;
      }
    }
    return BOUNDS_MICROS[BOUNDS_MICROS.length - 1] / 1000.0;
  }

  private static long[] bounds() {
    long[] bounds = new long[42];
    for (int k = 0; k < bounds.length; k++) {
      bounds[k] = Math.round(100 * Math.pow(Math.sqrt(2), k));
    }
    return bounds;
  }
}
