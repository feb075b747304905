package dev.mcpsupervisor.http;

import dev.mcpsupervisor.protocol.config.GatewayConfig;

/**
 * How much one gateway, one caller and one session may hold at once: the {@code gateway.max*}
 * settings (see docs/configuration.md).
 */
record GatewayLimits(
    int maxDownstreamSessions,
    int maxDownstreamSessionsPerIdentity,
    int maxInflightPerSession,
    int maxInflightPerIdentity,
    int maxBatchLength) {

  static GatewayLimits of(GatewayConfig gateway) {
    return new GatewayLimits(
        gateway.maxDownstreamSessions(),
        gateway.maxDownstreamSessionsPerIdentity(),
        gateway.maxInflightPerSession(),
        gateway.maxInflightPerIdentity(),
        gateway.maxBatchLength());
  }

  /** reference.conf's. */
  static final GatewayLimits DEFAULTS =
      new GatewayLimits(
          GatewayConfig.DEFAULT_MAX_DOWNSTREAM_SESSIONS,
          GatewayConfig.DEFAULT_MAX_DOWNSTREAM_SESSIONS_PER_IDENTITY,
          GatewayConfig.DEFAULT_MAX_INFLIGHT_PER_SESSION,
          GatewayConfig.DEFAULT_MAX_INFLIGHT_PER_IDENTITY,
          GatewayConfig.DEFAULT_MAX_BATCH_LENGTH);
}
