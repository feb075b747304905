package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;

import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * The MCP endpoints' refusals of a whole HTTP request: an HTTP error with a JSON-RPC error body,
 * its reason counted in the metrics (so every refusal is counted, wherever it is decided).
 */
final class McpRefusals {

  private final GatewayMetrics metrics;

  McpRefusals(GatewayMetrics metrics) {
    this.metrics = metrics;
  }

  HttpResponse refuse(StatusCode status, String reason, String message) {
    metrics.rejected(reason);
    return McpResponses.error(status, INVALID_REQUEST, message);
  }

  /** A stream ended because its client read too slowly (counted like a refusal). */
  void streamOverflowed() {
    metrics.rejected("stream_overflow");
  }

  /** A refusal the downstream session decided (unknown session, conflict, shutting down). */
  HttpResponse refused(Exchange.Refused refused) {
    metrics.rejected(refused.status() == 404 ? "unknown_session" : "refused_" + refused.status());
    return McpResponses.json(StatusCodes.get(refused.status()), refused.error());
  }
}
