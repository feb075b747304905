package dev.mcpsupervisor.http.routes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.telemetry.McpSpan;
import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.http.javadsl.model.HttpResponse;

/**
 * The SERVER spans of the requests one POST carries. A span starts as the route hands its request
 * on, whose {@code _meta} then carries the span's context (so the upstream calls it causes are its
 * children); it ends when the exchange answering it sends its response, or a refusal, or ends
 * without one. A request the route answers itself, with no exchange, ends with that HTTP answer.
 */
final class ServerSpans {

  /** Requests on the way in: what to hand on, and the spans that wait for their answers. */
  static final class Traced {
    private final List<JsonRpcMessage> messages;

    /** Spans not ended yet, by the request id as JSON text. */
    private final Map<String, McpSpan> open;

    private volatile boolean attached;

    private Traced(List<JsonRpcMessage> messages, Map<String, McpSpan> open) {
      this.messages = messages;
      this.open = open;
    }

    List<JsonRpcMessage> messages() {
      return messages;
    }

    JsonRpcRequest request() {
      return (JsonRpcRequest) messages.get(0);
    }

    /** {@code exchange} answers these requests: their spans end with its events. */
    void attach(Exchange exchange) {
      if (open.isEmpty()) {
        return;
      }
      attached = true;
      exchange.observe(this::seen);
      exchange.terminated().thenRun(() -> endAll("cancelled"));
    }

    /** The route answered without an exchange: the spans end with its status. */
    HttpResponse answered(HttpResponse response) {
      if (!attached && !open.isEmpty()) {
        int status = response.status().intValue();
        endAll(status >= 400 ? Integer.toString(status) : null);
      }
      return response;
    }

    private void seen(Exchange.Event event) {
      if (event instanceof Exchange.Message message) {
        answered(message.json());
      } else if (event instanceof Exchange.Complete complete) {
        complete.responses().forEach(this::answered);
      } else if (event instanceof Exchange.Refused refused) {
        JsonNode code = refused.error().path("error").get("code");
        endAll(code != null ? code.asText() : Integer.toString(refused.status()));
      }
    }

    private void answered(ObjectNode json) {
      JsonNode id = json.get("id");
      if (id != null && (json.has("result") || json.has("error")) && json.get("method") == null) {
        McpSpan span = open.remove(id.toString());
        if (span != null) {
          span.end(json);
        }
      }
    }

    private void endAll(String errorType) {
      for (String id : List.copyOf(open.keySet())) {
        McpSpan span = open.remove(id);
        if (span != null) {
          span.end(errorType, null);
        }
      }
    }
  }

  private final McpTelemetry telemetry;

  ServerSpans(McpTelemetry telemetry) {
    this.telemetry = telemetry;
  }

  /**
   * Starts a span for each request among {@code messages}.
   *
   * @param sessionId the downstream session's id (session era), or null
   * @param protocolVersion the version the client speaks, if known
   */
  Traced start(List<JsonRpcMessage> messages, String sessionId, String protocolVersion) {
    if (!telemetry.isOn()) {
      return new Traced(messages, Map.of());
    }
    List<JsonRpcMessage> handedOn = new ArrayList<>(messages.size());
    Map<String, McpSpan> open = new ConcurrentHashMap<>();
    for (JsonRpcMessage message : messages) {
      if (message instanceof JsonRpcRequest request) {
        McpSpan span =
            telemetry
                .server(request.method(), request.params(), "tcp")
                .requestId(request.id())
                .sessionId(sessionId)
                .protocolVersion(protocolVersion);
        open.put(request.id().toString(), span);
        handedOn.add(request.withParams(span.params()));
      } else {
        handedOn.add(message);
      }
    }
    return new Traced(handedOn, open);
  }

  Traced start(JsonRpcRequest request, String sessionId, String protocolVersion) {
    return telemetry.isOn()
        ? start(List.of(request), sessionId, protocolVersion)
        : new Traced(List.of(request), Map.of());
  }
}
