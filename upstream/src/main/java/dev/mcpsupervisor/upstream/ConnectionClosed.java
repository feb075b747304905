package dev.mcpsupervisor.upstream;

/**
 * Why a connection ended.
 *
 * @param kind what happened
 * @param detail one human line (exit code, HTTP status, exception message); never a secret
 */
public record ConnectionClosed(Kind kind, String detail) {

  public enum Kind {
    /** {@link UpstreamConnection#close()} was called. */
    CLOSED_BY_US,
    /** The stdio process exited. */
    PROCESS_EXITED,
    /** A Streamable HTTP server answered 404 for our session id: it no longer knows the session. */
    SESSION_NOT_FOUND,
    /** A transport error (stream broke, connection refused, unparseable framing). */
    TRANSPORT_ERROR
  }
}
