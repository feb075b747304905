package dev.mcpsupervisor.http.ops;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.http.stream.StreamResumption;
import dev.mcpsupervisor.protocol.RequestStates;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;

/**
 * The gateway's tuning, read once from {@code mcp-supervisor.http} (defaults in this module's
 * reference.conf).
 */
public record GatewaySettings(
    Duration sseKeepAlive,
    Duration upstreamInitializeTimeout,
    Duration serverRequestTimeout,
    Duration aggregatedListTimeout,
    int maxListPages,
    Duration bodyReadTimeout,
    RequestStates requestStates,
    StreamResumption.Settings sseResume,
    String agentIdHeader) {

  public static final String PATH = "mcp-supervisor.http";

  /**
   * Reads the settings from a whole configuration (an actor system's), falling back to this
   * module's defaults.
   */
  public static GatewaySettings fromConfig(Config root) {
    Config c = root.withFallback(ConfigFactory.defaultReference()).getConfig(PATH);
    return new GatewaySettings(
        c.getDuration("sseKeepAlive"),
        c.getDuration("upstreamInitializeTimeout"),
        c.getDuration("serverRequestTimeout"),
        c.getDuration("aggregatedListTimeout"),
        c.getInt("maxListPages"),
        c.getDuration("bodyReadTimeout"),
        requestStatesOf(c.getString("requestStateKey")),
        StreamResumption.Settings.fromConfig(c.getConfig("sseResume")),
        c.getString("agentIdHeader").trim());
  }

  /**
   * These settings on a node of {@code cluster} (null: a single node, unchanged): unless {@code
   * requestStateKey} is set in {@code root}, requestStates are sealed under the cluster's secret,
   * so that every node opens every node's.
   */
  public GatewaySettings inCluster(ClusterConfig cluster, Config root) {
    Config c = root.withFallback(ConfigFactory.defaultReference()).getConfig(PATH);
    if (cluster == null || !c.getString("requestStateKey").isBlank()) {
      return this;
    }
    return new GatewaySettings(
        sseKeepAlive,
        upstreamInitializeTimeout,
        serverRequestTimeout,
        aggregatedListTimeout,
        maxListPages,
        bodyReadTimeout,
        clusterRequestStates(cluster.secret()),
        sseResume,
        agentIdHeader);
  }

  /**
   * States every node of the cluster of {@code secret} opens: sealed under a key derived from it
   * ({@link ClusterConfig#derivedKey}).
   */
  public static RequestStates clusterRequestStates(String secret) {
    return new RequestStates(
        ClusterConfig.derivedKey(secret, "mcp-supervisor requestState"), Clock.systemUTC());
  }

  /**
   * Sealed with the configured key (base64, 32 bytes or more), else with one of this process; a key
   * that is not that stops the start with a message naming the setting.
   */
  static RequestStates requestStatesOf(String base64Key) {
    if (base64Key.isBlank()) {
      return RequestStates.withRandomKey();
    }
    try {
      return new RequestStates(Base64.getDecoder().decode(base64Key.trim()), Clock.systemUTC());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          PATH + ".requestStateKey must be base64 of 32 bytes or more: " + e.getMessage(), e);
    }
  }
}
