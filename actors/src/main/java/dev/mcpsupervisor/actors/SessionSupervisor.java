package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.connector.UpstreamConnector;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * The embedding API: shares upstream MCP sessions safely among many concurrent callers. No Pekko types in its
 * signatures except {@link #actorSystem()}, which in-process integrations (the HTTP gateway) use to bind on the same
 * system.
 *
 * <p>A <em>context</em> is who holds a lease (a flow run id, a downstream session id). A context holds at most one
 * lease per server; {@link #request} acquires it on first use; {@link #release} and {@link #releaseAll} end it.
 *
 * <p>Every stage returned completes — with a result, or with a JSON-RPC error response (never exceptionally for an
 * upstream failure): timeouts, lost sessions, open circuits and unknown servers are error responses with the codes in
 * {@code JsonRpcErrorCodes}. Cancelling the stage of {@link #request} (via {@code toCompletableFuture().cancel(..)})
 * sends {@code notifications/cancelled} upstream and frees the pending entry.
 */
public final class SessionSupervisor implements AutoCloseable {

  private SessionSupervisor() {}

  /** Starts a supervisor on its own actor system with the real connectors (stdio, Streamable HTTP, SSE). */
  public static SessionSupervisor start(SupervisorConfig config) {
    throw new UnsupportedOperationException("TODO");
  }

  /** Starts a supervisor with the given connector and observer (tests, metrics). */
  public static SessionSupervisor start(
      SupervisorConfig config, UpstreamConnector connector, SupervisorObserver observer) {
    throw new UnsupportedOperationException("TODO");
  }

  /**
   * Sends one request to a server for a context and answers with the upstream's response (its id is the upstream's
   * business: callers put their own id back). {@code params._meta.progressToken}, if any, is the caller's own: progress
   * comes back to the context's {@link ContextListener} with that token.
   *
   * @param deadline null for the server's configured {@code requestTimeout}
   */
  public CompletionStage<JsonRpcResponse> request(
      String context, String server, String method, JsonNode params, Duration deadline) {
    throw new UnsupportedOperationException("TODO");
  }

  /** Forwards a client notification (e.g. roots/list_changed) to the session serving this context. */
  public void notify(String context, String server, String method, JsonNode params) {
    throw new UnsupportedOperationException("TODO");
  }

  /**
   * Takes a lease for the context on the server (starting a session if needed). Completes when the session is ready,
   * with the upstream's {@code initialize} result (protocolVersion, capabilities, serverInfo, instructions); fails with
   * {@link SupervisorException} (carrying the JSON-RPC error) when the server is unknown or cannot be reached.
   */
  public CompletionStage<JsonNode> acquire(String context, String server) {
    throw new UnsupportedOperationException("TODO");
  }

  /** Ends the context's lease on the server. Idempotent. */
  public CompletionStage<Void> release(String context, String server) {
    throw new UnsupportedOperationException("TODO");
  }

  /** Ends every lease the context holds and forgets its listener. Idempotent. */
  public CompletionStage<Void> releaseAll(String context) {
    throw new UnsupportedOperationException("TODO");
  }

  /** Routes notifications and server-to-client requests for this context to the listener (replacing any earlier). */
  public void register(String context, ContextListener listener) {
    throw new UnsupportedOperationException("TODO");
  }

  public CompletionStage<SupervisorSnapshot> snapshot() {
    throw new UnsupportedOperationException("TODO");
  }

  public SupervisorConfig config() {
    throw new UnsupportedOperationException("TODO");
  }

  /** The actor system this supervisor runs on. */
  public org.apache.pekko.actor.typed.ActorSystem<?> actorSystem() {
    throw new UnsupportedOperationException("TODO");
  }

  /** Closes every session and child process, then stops the actor system. Completes when all is gone. */
  public CompletionStage<Void> shutdown() {
    throw new UnsupportedOperationException("TODO");
  }

  /** {@link #shutdown()} and wait for it (bounded by the configured shutdown timeout). */
  @Override
  public void close() {
    throw new UnsupportedOperationException("TODO");
  }
}
