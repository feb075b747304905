package dev.mcpsupervisor.actors.base;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.MISSING_CLIENT_CAPABILITY;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.MISSING_CREDENTIAL;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.OVERLOADED;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.REQUEST_CANCELLED;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.REQUEST_TIMEOUT;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.SHUTTING_DOWN;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UNKNOWN_SERVER;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UPSTREAM_MESSAGE_TOO_LARGE;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UPSTREAM_SESSION_LOST;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UPSTREAM_UNAVAILABLE;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.UpstreamDiagnostics;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.upstream.Failures;

/**
 * The errors the supervisor answers with, worded in one place. Each has a stable {@link #kind} for
 * metrics ({@link SupervisorObserver#requestCompleted}).
 */
public final class SupervisorErrors {

  /** The {@code _meta} key by which an upstream names the request of ours it asks on behalf of. */
  public static final String RELATED_REQUEST = "io.modelcontextprotocol/related-request";

  private SupervisorErrors() {}

  public static JsonRpcError unknownServer(String server) {
    return new JsonRpcError(UNKNOWN_SERVER, "unknown server " + server);
  }

  /**
   * {@code identity} (null: a caller of no identity) has no value for {@code name}, which {@code
   * server}'s headers need; the value itself is never in an error.
   */
  public static JsonRpcError missingCredential(String server, String identity, String name) {
    return new JsonRpcError(
        MISSING_CREDENTIAL,
        "server "
            + server
            + " acts as each caller and "
            + (identity == null ? "this caller has no identity" : "identity " + identity + " has")
            + " no "
            + name
            + " in gateway.identitySecrets");
  }

  /**
   * {@code server} exchanges its caller's access token ({@code tokenExchange}) and the exchange
   * failed: the caller's own error (its session's, no other caller's). What the token endpoint
   * answered goes to the log under the ref.
   */
  public static JsonRpcError tokenExchangeFailed(UpstreamDiagnostics.Incident incident) {
    String ref = incident.told();
    ObjectNode data = JsonRpcCodec.emptyObject();
    data.put("server", incident.server());
    data.put("ref", ref);
    return new JsonRpcError(
        MISSING_CREDENTIAL,
        "server "
            + incident.server()
            + " could not get a token for this caller: exchanging the caller's access token"
            + " (tokenExchange) failed (ref "
            + ref
            + ")",
        data);
  }

  /**
   * {@code server} passes its caller's own bearer token upstream ({@code passCallerToken}) and none
   * is known for this call: a session adopted from another node learns it from its caller's next
   * request.
   */
  public static JsonRpcError missingCallerToken(String server) {
    return new JsonRpcError(
        MISSING_CREDENTIAL,
        "server "
            + server
            + " acts with each caller's bearer token (passCallerToken or tokenExchange) and this"
            + " call has none: send the request again");
  }

  /**
   * The server cannot serve now. {@code detail} (an upstream's diagnostics: URL, HTTP body, stderr)
   * goes to the log under a ref; the client gets the ref.
   */
  public static JsonRpcError unavailable(String server, String detail) {
    return unavailable(UpstreamDiagnostics.incident(server, detail));
  }

  /**
   * The server cannot serve now, for a reason in the supervisor's own words ("not ready within 5000
   * ms"); never for an upstream's text, which goes through {@link #unavailable(String, String)}.
   */
  public static JsonRpcError unavailableBecause(String server, String ownReason) {
    return new JsonRpcError(
        UPSTREAM_UNAVAILABLE, "upstream " + server + " unavailable: " + ownReason);
  }

  public static JsonRpcError unavailable(UpstreamDiagnostics.Incident incident) {
    return new JsonRpcError(
        UPSTREAM_UNAVAILABLE,
        "upstream " + incident.server() + " unavailable (ref " + incident.told() + ")");
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

  /** Too many calls of interactive tools wait for a session of their own already. */
  public static JsonRpcError interactiveOverloaded(String server, int waiting) {
    return new JsonRpcError(
        OVERLOADED,
        server
            + " is overloaded: "
            + waiting
            + " calls of interactive tools are waiting for a session already");
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

  /**
   * The session died (or was closed) while the request was in flight; the caller may retry it. Why
   * it died goes to the log under the ref the client gets.
   */
  public static JsonRpcError sessionLost(String server, String method, String detail) {
    return sessionLost(UpstreamDiagnostics.incident(server, detail), method);
  }

  public static JsonRpcError sessionLost(UpstreamDiagnostics.Incident incident, String method) {
    String ref = incident.told();
    ObjectNode data = JsonRpcCodec.emptyObject();
    data.put("retryable", true);
    data.put("server", incident.server());
    data.put("ref", ref);
    return new JsonRpcError(
        UPSTREAM_SESSION_LOST,
        "upstream session of "
            + incident.server()
            + " was lost while "
            + method
            + " was in flight (ref "
            + ref
            + ")",
        data);
  }

  /**
   * The server answered the request with something that is not a JSON-RPC response to it: the
   * request fails, its session goes on. What was wrong goes to the log under the ref the client
   * gets, never the server's text.
   */
  public static JsonRpcError badAnswer(String server, String method, String problem) {
    UpstreamDiagnostics.Incident incident =
        UpstreamDiagnostics.incident(server, method + ": the answer is not JSON-RPC: " + problem);
    String ref = incident.told();
    ObjectNode data = JsonRpcCodec.emptyObject();
    data.put("server", server);
    data.put("ref", ref);
    return new JsonRpcError(
        INTERNAL_ERROR,
        server + " answered " + method + " with something that is not JSON-RPC (ref " + ref + ")",
        data);
  }

  /** Something failed inside: what goes to the log under the ref the client gets. */
  public static JsonRpcError internal(String where, Throwable failure) {
    UpstreamDiagnostics.Incident incident =
        UpstreamDiagnostics.incident(where, Failures.describe(failure));
    return new JsonRpcError(INTERNAL_ERROR, "internal error (ref " + incident.told() + ")");
  }

  public static JsonRpcError shuttingDown() {
    return new JsonRpcError(SHUTTING_DOWN, "mcp-supervisor is shutting down");
  }

  /**
   * The caller lacks a capability its call needs (the upstream asked it for sampling or
   * elicitation): the error a 2026-07-28 server answers such a client, with {@code
   * data.requiredCapabilities}.
   */
  public static JsonRpcError missingCapability(String capability) {
    ObjectNode data = JsonRpcCodec.emptyObject();
    data.putObject("requiredCapabilities").putObject(capability);
    return new JsonRpcError(
        MISSING_CLIENT_CAPABILITY,
        "Missing client capability: the server asked for " + capability,
        data);
  }

  public static JsonRpcError noClient(String server, String method, String why) {
    return new JsonRpcError(
        NO_CLIENT_FOR_SERVER_REQUEST,
        "no client can answer " + method + " from " + server + ": " + why);
  }

  /**
   * A server-to-client request that names no call, on a session several clients share: handing it
   * to one of them could serve a client that did not cause it (a confused deputy).
   */
  public static JsonRpcError ambiguousServerRequest(String server, String method, int claimants) {
    return new JsonRpcError(
        NO_CLIENT_FOR_SERVER_REQUEST,
        "ambiguous server request: more than one client shares this session of "
            + server
            + " ("
            + claimants
            + " could have caused "
            + method
            + "); an upstream ties a request to its call with _meta \""
            + RELATED_REQUEST
            + "\"");
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
      case UPSTREAM_MESSAGE_TOO_LARGE -> "message_too_large";
      case MISSING_CREDENTIAL -> "missing_credential";
      default -> "error";
    };
  }
}
