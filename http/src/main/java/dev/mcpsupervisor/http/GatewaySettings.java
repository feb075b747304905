package dev.mcpsupervisor.http;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;

/**
 * The gateway's tuning, read once from {@code mcp-supervisor.http} (defaults in this module's
 * reference.conf).
 */
record GatewaySettings(
    Duration sseKeepAlive,
    Duration upstreamInitializeTimeout,
    Duration serverRequestTimeout,
    Duration aggregatedListTimeout,
    int maxListPages,
    int streamBuffer,
    Duration bodyReadTimeout,
    StreamReplay.Settings sseResume) {

  static final String PATH = "mcp-supervisor.http";

  /**
   * Reads the settings from a whole configuration (an actor system's), falling back to this
   * module's defaults.
   */
  static GatewaySettings fromConfig(Config root) {
    Config c = root.withFallback(ConfigFactory.defaultReference()).getConfig(PATH);
    return new GatewaySettings(
        c.getDuration("sseKeepAlive"),
        c.getDuration("upstreamInitializeTimeout"),
        c.getDuration("serverRequestTimeout"),
        c.getDuration("aggregatedListTimeout"),
        c.getInt("maxListPages"),
        c.getInt("streamBuffer"),
        c.getDuration("bodyReadTimeout"),
        StreamReplay.Settings.fromConfig(c.getConfig("sseResume")));
  }
}
