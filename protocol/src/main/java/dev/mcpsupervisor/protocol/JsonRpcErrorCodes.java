package dev.mcpsupervisor.protocol;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;

/**
 * MCP error codes and the gateway's own (in the implementation-defined server error range), with
 * JSON-RPC's own from {@link JsonRpcError}, so that one import names every code.
 */
public final class JsonRpcErrorCodes {

  private JsonRpcErrorCodes() {}

  public static final int PARSE_ERROR = JsonRpcError.PARSE_ERROR;
  public static final int INVALID_REQUEST = JsonRpcError.INVALID_REQUEST;
  public static final int METHOD_NOT_FOUND = JsonRpcError.METHOD_NOT_FOUND;
  public static final int INVALID_PARAMS = JsonRpcError.INVALID_PARAMS;
  public static final int INTERNAL_ERROR = JsonRpcError.INTERNAL_ERROR;

  /** MCP: a resource that does not exist. */
  // 2026-07-28 (stateless) errors.

  /** An HTTP header (MCP-Protocol-Version, Mcp-Method, Mcp-Name) disagrees with the body. */
  public static final int HEADER_MISMATCH = -32020;

  /** The request needs a client capability its {@code _meta} did not declare. */
  public static final int MISSING_CLIENT_CAPABILITY = -32021;

  /** The protocol version in {@code _meta} is not one the server serves. */
  public static final int UNSUPPORTED_PROTOCOL_VERSION = -32022;

  public static final int RESOURCE_NOT_FOUND = -32002;

  // Gateway errors, -32000..-32099 ("server error" range reserved for implementations).
  /**
   * The upstream session died while this request was in flight; {@code data.retryable} says whether
   * to retry.
   */
  public static final int UPSTREAM_SESSION_LOST = -32001;

  /** The request's deadline passed before the upstream answered. */
  public static final int REQUEST_TIMEOUT = -32003;

  /** The session's stash or in-flight limit is full. */
  public static final int OVERLOADED = -32004;

  /** The server key's circuit is open after repeated restart failures. */
  public static final int UPSTREAM_UNAVAILABLE = -32005;

  /** No configured server has that name (or tool prefix). */
  public static final int UNKNOWN_SERVER = -32006;

  /** The caller cancelled the request. */
  public static final int REQUEST_CANCELLED = -32007;

  /** The supervisor is shutting down. */
  public static final int SHUTTING_DOWN = -32008;

  /**
   * A server-to-client request (sampling, elicitation, roots) that no downstream client can answer.
   */
  public static final int NO_CLIENT_FOR_SERVER_REQUEST = -32009;

  /**
   * An upstream answer (an HTTP body, a server-sent event) was larger than the server's {@code
   * maxMessageBytes}: the call fails, the session goes on.
   */
  public static final int UPSTREAM_MESSAGE_TOO_LARGE = -32015;

  /**
   * The caller has no credential for a server that acts as each caller ({@code ${identity:NAME}} in
   * its headers): the message names the server and the missing name, never a value.
   */
  public static final int MISSING_CREDENTIAL = -32025;
}
