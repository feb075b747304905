package dev.mcpsupervisor.actors.telemetry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.ArrayList;
import java.util.List;

/**
 * Traces and times MCP requests as the OpenTelemetry GenAI conventions for MCP describe: a SERVER
 * span for each request the gateway receives, a CLIENT span for each it sends upstream, the two
 * operation-duration histograms, and the trace context carried in {@code params._meta} ({@code
 * traceparent}, {@code tracestate}, {@code baggage}) so a trace runs client → gateway → server.
 *
 * <p>Off unless an OpenTelemetry SDK is there: {@link #OFF} does nothing and costs a field read per
 * request; {@link #global()} follows {@link GlobalOpenTelemetry} from the moment the host
 * application installs an SDK there.
 */
public final class McpTelemetry {

  /** Telemetry that records nothing: requests pass unchanged. */
  public static final McpTelemetry OFF = new McpTelemetry(null, false);

  static final String SCOPE = "dev.mcpsupervisor";

  /** The conventions' recommended bounds for the operation durations, in seconds. */
  private static final List<Double> DURATION_BOUNDS =
      List.of(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0);

  /**
   * MCP carries the W3C trace context and baggage in {@code _meta}, whatever the host propagates.
   */
  private static final TextMapPropagator META_PROPAGATOR =
      TextMapPropagator.composite(
          W3CTraceContextPropagator.getInstance(), W3CBaggagePropagator.getInstance());

  /**
   * Whether the API can tell a set global from none without setting the no-op one ({@code isSet}:
   * 1.62 has it, 1.55, which Spring Boot 4.0 manages, has not): with an older API {@link #global()}
   * stays off and the application passes its OpenTelemetry to {@link #of}.
   */
  private static final boolean GLOBAL_READABLE = hasIsSet();

  private final boolean followsGlobal;
  private volatile Instruments instruments;

  private McpTelemetry(OpenTelemetry openTelemetry, boolean followsGlobal) {
    this.followsGlobal = followsGlobal;
    this.instruments = openTelemetry == null ? null : new Instruments(openTelemetry);
  }

  /** Telemetry on this OpenTelemetry (the application's SDK, a test's in-memory one). */
  public static McpTelemetry of(OpenTelemetry openTelemetry) {
    return new McpTelemetry(openTelemetry, false);
  }

  /**
   * Telemetry on the global OpenTelemetry once the host application has set one; off before (and
   * never forces the no-op global, which would refuse the host's SDK later).
   */
  public static McpTelemetry global() {
    return new McpTelemetry(null, true);
  }

  private Instruments instruments() {
    Instruments current = instruments;
    if (current == null && followsGlobal && GLOBAL_READABLE && GlobalOpenTelemetry.isSet()) {
      current = new Instruments(GlobalOpenTelemetry.get());
      instruments = current;
    }
    return current;
  }

  private static boolean hasIsSet() {
    try {
      GlobalOpenTelemetry.class.getMethod("isSet");
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /** Whether spans are recorded: when not, {@code params} go on unchanged. */
  public boolean isOn() {
    return instruments() != null;
  }

  /**
   * {@code params} with the calling thread's trace context in {@code _meta}, unless it carries one
   * already or there is none: so an embedding application's span is the parent of the call's CLIENT
   * span, which starts on another thread.
   */
  public JsonNode withCallerContext(JsonNode params) {
    if (instruments() == null) {
      return params;
    }
    JsonNode meta = params == null ? null : params.get("_meta");
    if ((meta != null && meta.has("traceparent")) || !Span.current().getSpanContext().isValid()) {
      return params;
    }
    return withContext(params, Context.current());
  }

  /**
   * A CLIENT span for a request sent upstream, child of the context in {@code params._meta}. {@link
   * McpSpan#params()} is what to send: the params with this span's context in {@code _meta}.
   *
   * @param transport {@code pipe} (stdio) or {@code tcp} (HTTP)
   */
  public McpSpan client(String method, JsonNode params, String transport) {
    Instruments on = instruments();
    return on == null
        ? McpSpan.off(params)
        : McpSpan.start(on, SpanKind.CLIENT, method, params, transport, parentOf(params));
  }

  /**
   * A SERVER span for a request the gateway received, child of the context its client put in {@code
   * params._meta}. {@link McpSpan#params()} is what to pass on: the params with this span's context
   * in {@code _meta}, so the upstream calls it causes are its children.
   */
  public McpSpan server(String method, JsonNode params, String transport) {
    Instruments on = instruments();
    return on == null
        ? McpSpan.off(params)
        : McpSpan.start(on, SpanKind.SERVER, method, params, transport, parentOf(params));
  }

  private static Context parentOf(JsonNode params) {
    JsonNode meta = params == null ? null : params.get("_meta");
    if (meta == null || !meta.isObject() || !meta.has("traceparent")) {
      return Context.root();
    }
    return META_PROPAGATOR.extract(Context.root(), (ObjectNode) meta, MetaCarrier.INSTANCE);
  }

  /** A copy of {@code params} whose {@code _meta} carries {@code context}. */
  static JsonNode withContext(JsonNode params, Context context) {
    ObjectNode copy =
        params instanceof ObjectNode object ? object.deepCopy() : JsonRpcCodec.emptyObject();
    JsonNode meta = copy.get("_meta");
    META_PROPAGATOR.inject(
        context,
        meta instanceof ObjectNode object ? object : copy.putObject("_meta"),
        MetaCarrier.INSTANCE);
    return copy;
  }

  /** {@code _meta} as a carrier of W3C headers. */
  private enum MetaCarrier implements TextMapGetter<ObjectNode>, TextMapSetter<ObjectNode> {
    INSTANCE;

    @Override
    public Iterable<String> keys(ObjectNode meta) {
      List<String> keys = new ArrayList<>();
      meta.fieldNames().forEachRemaining(keys::add);
      return keys;
    }

    @Override
    public String get(ObjectNode meta, String key) {
      JsonNode value = meta == null ? null : meta.get(key);
      return value != null && value.isTextual() ? value.textValue() : null;
    }

    @Override
    public void set(ObjectNode meta, String key, String value) {
      if (meta != null) {
        meta.put(key, value);
      }
    }
  }

  /** The tracer and the two histograms of one OpenTelemetry. */
  static final class Instruments {
    final Tracer tracer;
    final DoubleHistogram clientDuration;
    final DoubleHistogram serverDuration;

    Instruments(OpenTelemetry openTelemetry) {
      tracer = openTelemetry.getTracer(SCOPE);
      Meter meter = openTelemetry.getMeter(SCOPE);
      clientDuration =
          meter
              .histogramBuilder("mcp.client.operation.duration")
              .setDescription(
                  "The duration of an MCP request as the gateway saw it, sent upstream until"
                      + " answered")
              .setUnit("s")
              .setExplicitBucketBoundariesAdvice(DURATION_BOUNDS)
              .build();
      serverDuration =
          meter
              .histogramBuilder("mcp.server.operation.duration")
              .setDescription(
                  "The duration of an MCP request the gateway received, until its answer was sent")
              .setUnit("s")
              .setExplicitBucketBoundariesAdvice(DURATION_BOUNDS)
              .build();
    }
  }
}
