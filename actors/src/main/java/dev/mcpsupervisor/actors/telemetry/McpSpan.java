package dev.mcpsupervisor.actors.telemetry;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One MCP request traced: its span, the attributes of the conventions, and its duration, recorded
 * once when it ends. Thread-safe; a span of {@link McpTelemetry#OFF} records nothing.
 */
public final class McpSpan {

  static final AttributeKey<String> METHOD = AttributeKey.stringKey("mcp.method.name");
  static final AttributeKey<String> TOOL = AttributeKey.stringKey("gen_ai.tool.name");
  static final AttributeKey<String> PROMPT = AttributeKey.stringKey("gen_ai.prompt.name");
  static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
  static final AttributeKey<String> RESOURCE = AttributeKey.stringKey("mcp.resource.uri");
  static final AttributeKey<String> TRANSPORT = AttributeKey.stringKey("network.transport");
  static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("jsonrpc.request.id");
  static final AttributeKey<String> SESSION_ID = AttributeKey.stringKey("mcp.session.id");
  static final AttributeKey<String> PROTOCOL = AttributeKey.stringKey("mcp.protocol.version");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> STATUS_CODE =
      AttributeKey.stringKey("rpc.response.status_code");

  /** {@code error.type} of a tool call whose result says {@code isError}. */
  public static final String TOOL_ERROR = "tool_error";

  private final Span span;
  private final JsonNode params;
  private final DoubleHistogram duration;
  private final long startNanos;
  private final AtomicBoolean ended = new AtomicBoolean();

  /** The low-cardinality attributes the duration is recorded with (more on the span). */
  private final AttributesBuilder measured;

  private McpSpan(
      Span span, JsonNode params, DoubleHistogram duration, AttributesBuilder measured) {
    this.span = span;
    this.params = params;
    this.duration = duration;
    this.measured = measured;
    this.startNanos = System.nanoTime();
  }

  static McpSpan off(JsonNode params) {
    return new McpSpan(null, params, null, null);
  }

  static McpSpan start(
      McpTelemetry.Instruments on,
      SpanKind kind,
      String method,
      JsonNode params,
      String transport,
      Context parent) {
    AttributesBuilder measured = Attributes.builder().put(METHOD, method);
    if (transport != null) {
      measured.put(TRANSPORT, transport);
    }
    String target = null;
    if (McpMethods.TOOLS_CALL.equals(method)) {
      target = textParam(params, "name");
      measured.put(OPERATION, "execute_tool");
      if (target != null) {
        measured.put(TOOL, target);
      }
    } else if (McpMethods.PROMPTS_GET.equals(method)) {
      target = textParam(params, "name");
      if (target != null) {
        measured.put(PROMPT, target);
      }
    }
    Attributes start = measured.build();
    var builder =
        on.tracer
            .spanBuilder(target == null ? method : method + " " + target)
            .setSpanKind(kind)
            .setParent(parent)
            .setAllAttributes(start);
    String uri = textParam(params, "uri");
    if (uri != null && method.startsWith("resources/")) {
      builder.setAttribute(RESOURCE, uri);
    }
    Span span = builder.startSpan();
    DoubleHistogram duration = kind == SpanKind.SERVER ? on.serverDuration : on.clientDuration;
    return new McpSpan(
        span,
        McpTelemetry.withContext(params, Context.root().with(span)),
        duration,
        start.toBuilder());
  }

  private static String textParam(JsonNode params, String name) {
    JsonNode value = params == null ? null : params.get(name);
    return value != null && value.isTextual() ? value.textValue() : null;
  }

  /** Whether this span records (false under {@link McpTelemetry#OFF}). */
  public boolean isRecording() {
    return span != null;
  }

  /** The params to send on: with this span's context in {@code _meta} when it records. */
  public JsonNode params() {
    return params;
  }

  /** The JSON-RPC id the request went with (the last one, if it was sent again). */
  public McpSpan requestId(JsonNode id) {
    if (span != null && id != null) {
      span.setAttribute(REQUEST_ID, id.isTextual() ? id.textValue() : id.toString());
    }
    return this;
  }

  /** The MCP session the request belongs to (the session era only). */
  public McpSpan sessionId(String id) {
    if (span != null && id != null) {
      span.setAttribute(SESSION_ID, id);
    }
    return this;
  }

  public McpSpan protocolVersion(String version) {
    if (span != null && version != null) {
      span.setAttribute(PROTOCOL, version);
      synchronized (measured) {
        measured.put(PROTOCOL, version);
      }
    }
    return this;
  }

  /** Something happened to the request on its way: a retry, a restart of its session. */
  public void event(String name, String detail) {
    if (span != null) {
      span.addEvent(
          name,
          detail == null
              ? Attributes.empty()
              : Attributes.of(AttributeKey.stringKey("detail"), detail));
    }
  }

  /** The request is answered: {@code error.type} from a JSON-RPC error or a tool's isError. */
  public void end(JsonRpcResponse response) {
    if (span == null) {
      return;
    }
    if (response == null) {
      end("cancelled", null);
    } else if (response.isError()) {
      end(Integer.toString(response.error().code()), response.error().message());
    } else {
      endWithResult(response.result());
    }
  }

  /** {@link #end(JsonRpcResponse)} for a response as JSON. */
  public void end(JsonNode response) {
    if (span == null) {
      return;
    }
    JsonNode error = response.get("error");
    if (error != null && error.isObject()) {
      end(error.path("code").asText("error"), error.path("message").asText(null));
    } else {
      endWithResult(response.get("result"));
    }
  }

  private void endWithResult(JsonNode result) {
    end(result != null && result.path("isError").asBoolean(false) ? TOOL_ERROR : null, null);
  }

  /**
   * The request ended: {@code errorType} null for success, else the JSON-RPC code (as text) or a
   * word ({@code tool_error}, {@code cancelled}).
   */
  public void end(String errorType, String description) {
    if (span == null || !ended.compareAndSet(false, true)) {
      return;
    }
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    Attributes recorded;
    synchronized (measured) {
      if (errorType != null) {
        measured.put(ERROR_TYPE, errorType);
      }
      recorded = measured.build();
    }
    if (errorType != null) {
      span.setAttribute(ERROR_TYPE, errorType);
      if (errorType.startsWith("-") || Character.isDigit(errorType.charAt(0))) {
        span.setAttribute(STATUS_CODE, errorType);
      }
      span.setStatus(StatusCode.ERROR, description == null ? errorType : description);
    }
    span.end();
    duration.record(seconds, recorded);
  }
}
