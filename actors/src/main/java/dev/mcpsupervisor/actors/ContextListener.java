package dev.mcpsupervisor.actors;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.concurrent.CompletionStage;

/**
 * What an embedding caller (or the gateway, for one downstream session) registers for a context to receive what
 * upstream servers send it. Called from actor threads: implementations hand work on and return at once.
 */
public interface ContextListener {

  /**
   * A notification routed to this context: progress for a request this context sent (with the caller's own progress
   * token restored), logging messages, list_changed and resource-updated notifications of a session this context
   * uses.
   */
  void onNotification(String server, JsonRpcNotification notification);

  /**
   * A server-to-client request (sampling, elicitation, roots) from an upstream while this context had a request in
   * flight there. The request id is the supervisor's own; answer with a response for that id (its id is replaced on
   * the way back). A failed stage is answered upstream with an error.
   */
  CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request);
}
