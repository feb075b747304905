package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import java.util.concurrent.CompletionStage;

/**
 * Opens connections to upstream MCP servers. Real connectors spawn processes or open HTTP streams;
 * tests use a fake driven by a TestProbe.
 */
public interface UpstreamConnector {

  /**
   * Opens a transport-level connection (a spawned process, an SSE endpoint handshake). It does NOT
   * run the MCP initialize handshake: the session actor sends {@code initialize} through {@link
   * UpstreamConnection#send}. The stage fails if the connection cannot be opened (command not
   * found, connection refused).
   */
  CompletionStage<UpstreamConnection> connect(ServerSpec spec, ConnectionListener listener);

  /** The limits of a server that sets none (reference.conf's server defaults). */
  UpstreamLimits DEFAULT_LIMITS = UpstreamLimits.defaults();

  /**
   * Opens a connection that holds the server to {@code limits}: what it may send, how long HTTP
   * waits. The real connectors honour them; a connector that does not (a test fake) opens as {@link
   * #connect(ServerSpec, ConnectionListener)} does.
   */
  default CompletionStage<UpstreamConnection> connect(
      ServerSpec spec, UpstreamLimits limits, ConnectionListener listener) {
    return connect(spec, listener);
  }
}
