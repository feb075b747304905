package dev.mcpsupervisor.app.chaos;

/**
 * One finished call: when it started and ended (milliseconds since the load started), whether it
 * was answered with its own payload, and if not, why.
 *
 * @param kind "ok", or the failure's kind: a gateway error kind ("session_lost", "timeout", ...),
 *     "error" (the upstream's own), "http_&lt;status&gt;", "client_timeout", "io", "tool_error",
 *     "wrong" (an answer meant for another call)
 * @param retryable the error said {@code data.retryable: true}
 */
record CallRecord(
    long startMillis, long endMillis, boolean readOnly, String kind, boolean retryable) {

  static final String OK = "ok";

  boolean ok() {
    return OK.equals(kind);
  }

  long millis() {
    return endMillis - startMillis;
  }
}
