package dev.mcpsupervisor.protocol.config;

import java.time.Duration;

/**
 * What one server may send the gateway, and how long the gateway waits for it: the bounds that keep
 * a broken or hostile upstream from exhausting memory or pinning threads.
 *
 * @param maxMessageBytes the largest message accepted from the server: an HTTP body, a server-sent
 *     event (and each of its lines), a stdio line
 * @param httpTimeout how long an HTTP POST may wait for the answer's headers
 * @param sseRetryMin the shortest reconnection delay a server's SSE {@code retry} field may set
 * @param sseRetryMax the longest reconnection delay a server's SSE {@code retry} field may set
 */
public record UpstreamLimits(
    int maxMessageBytes, Duration httpTimeout, Duration sseRetryMin, Duration sseRetryMax) {

  public UpstreamLimits {
    if (maxMessageBytes <= 0) {
      throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
    }
    if (httpTimeout.isNegative() || httpTimeout.isZero()) {
      throw new IllegalArgumentException("httpTimeout must be positive: " + httpTimeout);
    }
    if (sseRetryMin.isNegative() || sseRetryMax.compareTo(sseRetryMin) < 0) {
      throw new IllegalArgumentException(
          "need 0 <= sseRetryMin <= sseRetryMax: " + sseRetryMin + ", " + sseRetryMax);
    }
  }

  /**
   * The defaults, as reference.conf ({@code mcp-supervisor.server-defaults}) sets them, with POSTs
   * waiting as long as a request may ({@code requestTimeout}).
   */
  public static UpstreamLimits defaults(Duration requestTimeout) {
    return ServerConfigReader.upstreamLimits(
        ConfigLoader.referenceSection(ConfigLoader.SERVER_DEFAULTS), requestTimeout);
  }

  /** The defaults of a server that sets nothing, its {@code requestTimeout} included. */
  public static UpstreamLimits defaults() {
    ConfigSection defaults = ConfigLoader.referenceSection(ConfigLoader.SERVER_DEFAULTS);
    return ServerConfigReader.upstreamLimits(
        defaults, defaults.positiveDuration(ServerConfigReader.REQUEST_TIMEOUT));
  }

  /**
   * The reconnection delay to use for a server's {@code retry} of {@code requestedMillis}: clamped
   * into [sseRetryMin, sseRetryMax], so that {@code retry: 1} cannot make the gateway hammer the
   * server and {@code retry: 999999999} cannot park the stream for days.
   */
  public long clampSseRetryMillis(long requestedMillis) {
    return Math.max(sseRetryMin.toMillis(), Math.min(sseRetryMax.toMillis(), requestedMillis));
  }
}
