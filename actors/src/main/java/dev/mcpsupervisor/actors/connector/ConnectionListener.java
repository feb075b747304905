package dev.mcpsupervisor.actors.connector;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;

/**
 * Receives what an upstream connection reads. Called from the connector's own threads, never concurrently for one
 * connection; implementations only hand the event on (to an actor), they never block.
 */
public interface ConnectionListener {

  /** A message from the upstream: a response, a notification, or a server-to-client request. */
  void onMessage(JsonRpcMessage message);

  /**
   * The connection is gone (process exited, stream broke, the server forgot the session). Called at most once, also
   * after {@link UpstreamConnection#close()}. {@code cause} says why, for logs and the restart decision.
   */
  void onClosed(ConnectionClosed cause);
}
