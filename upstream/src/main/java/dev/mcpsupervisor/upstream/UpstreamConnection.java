package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;

/**
 * One live connection to an upstream MCP server. It moves JSON-RPC messages and nothing else:
 * correlation, deadlines, initialization and retries belong to the session actor. Thread-safe.
 */
public interface UpstreamConnection {

  /**
   * Sends one message. The stage fails when the message could not be handed to the transport (the
   * connection is closed, the HTTP POST was refused); answers arrive through {@link
   * ConnectionListener#onMessage}.
   */
  CompletionStage<Void> send(JsonRpcMessage message);

  /**
   * Ends the connection and frees everything it holds (for stdio: TERM the process and its
   * descendants, KILL after the grace period; for HTTP: DELETE the session, close streams).
   * Idempotent. Completes when all is gone.
   */
  CompletionStage<Void> close();

  /** The OS process id for stdio connections. */
  OptionalLong pid();
}
