package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.config.ServerSpec;
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
}
