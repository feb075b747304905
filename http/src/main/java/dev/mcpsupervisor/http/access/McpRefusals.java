package dev.mcpsupervisor.http.access;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;

import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.McpResponses;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * The MCP endpoints' refusals of a whole HTTP request: an HTTP error with a JSON-RPC error body,
 * its reason counted in the metrics (so every refusal is counted, wherever it is decided).
 */
public final class McpRefusals {

  private final GatewayMetrics metrics;

  public McpRefusals(GatewayMetrics metrics) {
    this.metrics = metrics;
  }

  public HttpResponse refuse(StatusCode status, String reason, String message) {
    metrics.rejected(reason);
    return McpResponses.error(status, INVALID_REQUEST, message);
  }

  /** A stream ended because its client read too slowly (counted like a refusal). */
  public void streamOverflowed() {
    metrics.rejected("stream_overflow");
  }

  /** A refusal the downstream session decided (unknown session, conflict, shutting down). */
  public HttpResponse refused(Exchange.Refused refused) {
    metrics.rejected(refused.status() == 404 ? "unknown_session" : "refused_" + refused.status());
    return McpResponses.json(StatusCodes.get(refused.status()), refused.error());
  }
}
