package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;

/**
 * Receives what an upstream connection reads. Called from the connector's own threads, never
 * concurrently for one connection; implementations only hand the event on (to an actor), they never
 * block.
 */
public interface ConnectionListener {

  /**
   * A message from the upstream: a response, a notification, or a server-to-client request.
   *
   * @param relatedRequestId the id of our request whose response stream carried this message
   *     (Streamable HTTP answers a POST with an SSE stream that may carry sampling requests or
   *     progress before the response), or null when the transport cannot tell (stdio, legacy SSE,
   *     the standalone GET stream)
   */
  void onMessage(JsonRpcMessage message, JsonNode relatedRequestId);

  /**
   * The connection is gone (process exited, stream broke, the server forgot the session). Called at
   * most once, also after {@link UpstreamConnection#close()}. {@code cause} says why, for logs and
   * the restart decision.
   */
  void onClosed(ConnectionClosed cause);
}
