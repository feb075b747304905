package dev.mcpsupervisor.protocol.config;

/**
 * How many downstream sessions and requests the gateway, one caller and one session may hold at
 * once: the {@code gateway} settings of that name (see docs/configuration.md).
 *
 * @param maxDownstreamSessions downstream sessions alive at once; past it a new one gets 503
 * @param maxDownstreamSessionsPerIdentity downstream sessions of one caller identity at once
 * @param maxInflightPerDownstreamSession requests of one downstream session in flight at once; past
 *     it a request is answered "overloaded"
 * @param maxInflightPerIdentity stateless (2026-07-28) requests of one caller in flight at once
 * @param maxBatchLength messages in one JSON-RPC batch; the requests past it are answered with an
 *     error
 */
public record SessionLimits(
    int maxDownstreamSessions,
    int maxDownstreamSessionsPerIdentity,
    int maxInflightPerDownstreamSession,
    int maxInflightPerIdentity,
    int maxBatchLength) {

  /** The defaults, as reference.conf ({@code mcp-supervisor.gateway}) sets them. */
  public static SessionLimits defaults() {
    return GatewayConfigReader.sessionLimits(
        ConfigLoader.referenceSection(ConfigLoader.GATEWAY_DEFAULTS));
  }
}
