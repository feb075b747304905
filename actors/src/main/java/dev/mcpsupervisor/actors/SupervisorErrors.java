package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.OVERLOADED;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.REQUEST_CANCELLED;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.REQUEST_TIMEOUT;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.SHUTTING_DOWN;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UNKNOWN_SERVER;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UPSTREAM_SESSION_LOST;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UPSTREAM_UNAVAILABLE;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;

/**
 * The errors the supervisor answers with, worded in one place. Each has a stable {@link #kind} for
 * metrics ({@link SupervisorObserver#requestCompleted}).
 */
public final class SupervisorErrors {

  private SupervisorErrors() {}

  public static JsonRpcError unknownServer(String server) {
    return new JsonRpcError(UNKNOWN_SERVER, "unknown server " + server);
  }

  public static JsonRpcError unavailable(String server, String reason) {
    return new JsonRpcError(UPSTREAM_UNAVAILABLE, "upstream " + server + " unavailable: " + reason);
  }

  public static JsonRpcError overloaded(long sessionId, String server, int waiting) {
    return new JsonRpcError(
        OVERLOADED,
        "session "
            + sessionId
            + " of "
            + server
            + " is overloaded: "
            + waiting
            + " requests waiting");
  }

  /** A context-isolated server has {@code maxSessions} sessions: a new context gets none. */
  public static JsonRpcError tooManySessions(String server, int maxSessions) {
    return new JsonRpcError(
        OVERLOADED,
        server + " is overloaded: its " + maxSessions + " sessions (maxSessions) are all in use");
  }

  public static JsonRpcError timeout(String method, String server, long millis) {
    return new JsonRpcError(
        REQUEST_TIMEOUT,
        "request " + method + " to " + server + " timed out after " + millis + " ms");
  }

  public static JsonRpcError cancelled(String method, String server) {
    return new JsonRpcError(
        REQUEST_CANCELLED, "request " + method + " to " + server + " was cancelled");
  }

  /** The session died (or was closed) while the request was in flight; the caller may retry it. */
  public static JsonRpcError sessionLost(String server, String method, String reason) {
    ObjectNode data = JsonRpcCodec.emptyObject();
    data.put("retryable", true);
    data.put("server", server);
    data.put("reason", reason);
    return new JsonRpcError(
        UPSTREAM_SESSION_LOST,
        "upstream session of " + server + " was lost while " + method + " was in flight",
        data);
  }

  public static JsonRpcError shuttingDown() {
    return new JsonRpcError(SHUTTING_DOWN, "mcp-supervisor is shutting down");
  }

  public static JsonRpcError noClient(String server, String method, String why) {
    return new JsonRpcError(
        NO_CLIENT_FOR_SERVER_REQUEST,
        "no client can answer " + method + " from " + server + ": " + why);
  }

  /**
   * A short word for metrics: "timeout", "session_lost", ...; "error" for an upstream's own error.
   */
  public static String kind(JsonRpcError error) {
    return switch (error.code()) {
      case REQUEST_TIMEOUT -> "timeout";
      case UPSTREAM_SESSION_LOST -> "session_lost";
      case OVERLOADED -> "overloaded";
      case UPSTREAM_UNAVAILABLE -> "unavailable";
      case UNKNOWN_SERVER -> "unknown_server";
      case REQUEST_CANCELLED -> "cancelled";
      case SHUTTING_DOWN -> "shutting_down";
      default -> "error";
    };
  }
}
