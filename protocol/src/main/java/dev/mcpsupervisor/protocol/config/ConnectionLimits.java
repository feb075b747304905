package dev.mcpsupervisor.protocol.config;

import java.time.Duration;

/**
 * What one connection and one caller's streams may hold: the {@code gateway} settings of that name
 * (see docs/configuration.md).
 *
 * @param maxStreamBufferBytes per open SSE stream, the bytes of events waiting for a slow client;
 *     past it the stream ends with an error (nothing is dropped silently)
 * @param requestHeaderTimeout a connection must deliver a request's headers within this long of its
 *     start or of its previous response, or it is closed
 * @param maxConnections open connections accepted at once; more wait in the accept queue
 * @param maxStreamsPerIdentity long-lived streams one caller may hold open; one more gets 429
 */
public record ConnectionLimits(
    long maxStreamBufferBytes,
    Duration requestHeaderTimeout,
    int maxConnections,
    int maxStreamsPerIdentity) {

  /** The defaults, as reference.conf ({@code mcp-supervisor.gateway}) sets them. */
  public static ConnectionLimits defaults() {
    return GatewayConfigReader.connectionLimits(
        ConfigLoader.referenceSection(ConfigLoader.GATEWAY_DEFAULTS));
  }
}
