package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.answer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * OpenTelemetry through the gateway, recorded by the SDK's in-memory exporter: a client's trace
 * context in {@code _meta} is the parent of the gateway's SERVER span, whose child CLIENT span's
 * context is what the upstream (the fixture over Streamable HTTP) received; attribute names as the
 * GenAI conventions for MCP spell them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TracingTest {

  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private static final String CLIENT_SPAN_ID = "b7ad6b7169203331";
  private static final String TRACEPARENT = "00-" + TRACE_ID + "-" + CLIENT_SPAN_ID + "-01";
  private static final String REMOTE = "/servers/remote/mcp";

  private static final Set<String> CONVENTION_KEYS =
      Set.of(
          "mcp.method.name",
          "mcp.protocol.version",
          "mcp.session.id",
          "mcp.resource.uri",
          "gen_ai.tool.name",
          "gen_ai.prompt.name",
          "gen_ai.operation.name",
          "jsonrpc.request.id",
          "error.type",
          "rpc.response.status_code",
          "network.transport");

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
  private OpenTelemetrySdk sdk;
  private FixtureHttpServer remote;
  private TestGateway traced;
  private TestGateway untraced;

  @BeforeAll
  void start() {
    sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .build();
    remote = FixtureServer.startHttp(0);
    ServerSpec spec =
        new ServerSpec.StreamableHttp(URI.create(remote.url()), Map.of(), UpstreamProtocol.SESSION);
    traced =
        TestGateway.traced(
            McpTelemetry.of(sdk),
            TestGateway.server("remote", spec),
            TestGateway.downServer("down"));
    untraced = TestGateway.start(TestGateway.server("remote", spec));
  }

  @AfterAll
  void stop() {
    traced.close();
    untraced.close();
    remote.close();
    sdk.close();
  }

  @BeforeEach
  void forget() {
    spans.reset();
  }

  @Test
  void aSessionCallIsOneTraceFromTheClientThroughTheGatewayToTheServer() {
    String session = traced.initialize(REMOTE);
    spans.reset();
    HttpResponse<String> response = traced.post(REMOTE, session, traceContextCall(7, TRACEPARENT));
    assertEquals(200, response.statusCode(), response.body());
    String received = TestGateway.text(answer(response));

    SpanData server = awaitSpan(SpanKind.SERVER, "tools/call " + FixtureTools.TRACE_CONTEXT);
    SpanData client = awaitSpan(SpanKind.CLIENT, "tools/call " + FixtureTools.TRACE_CONTEXT);
    assertEquals(TRACE_ID, server.getTraceId());
    assertEquals(CLIENT_SPAN_ID, server.getParentSpanId(), "the client's span is the parent");
    assertEquals(server.getSpanId(), client.getParentSpanId());
    assertEquals(TRACE_ID, client.getTraceId());
    assertEquals(
        "00-" + TRACE_ID + "-" + client.getSpanId() + "-01",
        received,
        "the upstream got the CLIENT span's context");

    assertEquals("tools/call", attribute(server, "mcp.method.name"));
    assertEquals(FixtureTools.TRACE_CONTEXT, attribute(server, "gen_ai.tool.name"));
    assertEquals("execute_tool", attribute(server, "gen_ai.operation.name"));
    assertEquals("7", attribute(server, "jsonrpc.request.id"));
    assertEquals(session, attribute(server, "mcp.session.id"));
    assertEquals("tcp", attribute(server, "network.transport"));
    assertEquals("tcp", attribute(client, "network.transport"));
    assertEquals(null, attribute(server, "error.type"));
    assertTrue(
        attribute(client, "mcp.protocol.version").matches("\\d{4}-\\d{2}-\\d{2}"),
        "the version the upstream session negotiated: " + client.getAttributes());
    for (SpanData span : List.of(server, client)) {
      Set<String> unknown =
          span.getAttributes().asMap().keySet().stream()
              .map(AttributeKey::getKey)
              .filter(key -> !CONVENTION_KEYS.contains(key))
              .collect(Collectors.toSet());
      assertEquals(Set.of(), unknown, "attribute names outside the conventions");
    }
    Collection<MetricData> recorded = metrics.collectAllMetrics();
    Set<String> names = recorded.stream().map(MetricData::getName).collect(Collectors.toSet());
    assertTrue(names.contains("mcp.server.operation.duration"), names.toString());
    assertTrue(names.contains("mcp.client.operation.duration"), names.toString());
  }

  @Test
  void aStatelessCallContinuesTheClientsTraceToo() {
    StatelessClient client = new StatelessClient(traced, "{}");
    String body =
        client.toolCall(
            "\"s1\"",
            FixtureTools.TRACE_CONTEXT,
            "{}",
            "",
            ",\"traceparent\":\"" + TRACEPARENT + "\"");
    HttpResponse<String> response =
        traced.post(
            REMOTE, null, body, StatelessClient.headers("tools/call", FixtureTools.TRACE_CONTEXT));
    assertEquals(200, response.statusCode(), response.body());
    SpanData server = awaitSpan(SpanKind.SERVER, "tools/call " + FixtureTools.TRACE_CONTEXT);
    SpanData upstream = awaitSpan(SpanKind.CLIENT, "tools/call " + FixtureTools.TRACE_CONTEXT);
    assertEquals(CLIENT_SPAN_ID, server.getParentSpanId());
    assertEquals(null, attribute(server, "mcp.session.id"), "no session in this era");
    assertEquals(server.getSpanId(), upstream.getParentSpanId());
    assertEquals(
        "00-" + TRACE_ID + "-" + upstream.getSpanId() + "-01", TestGateway.text(answer(response)));
  }

  @Test
  void failuresCarryTheirErrorType() {
    String session = traced.initialize(REMOTE);
    spans.reset();
    HttpResponse<String> toolError =
        traced.post(REMOTE, session, TestGateway.callTool(8, FixtureTools.FAIL, "{}"));
    assertEquals(200, toolError.statusCode(), toolError.body());
    SpanData failedTool = awaitSpan(SpanKind.SERVER, "tools/call " + FixtureTools.FAIL);
    assertEquals("tool_error", attribute(failedTool, "error.type"));
    assertEquals(
        "tool_error", attribute(awaitSpan(SpanKind.CLIENT, "tools/call fail"), "error.type"));

    HttpResponse<String> unknown =
        traced.post(REMOTE, session, TestGateway.request(9, "no/such/method", "{}"));
    assertEquals(200, unknown.statusCode(), unknown.body());
    SpanData failed = awaitSpan(SpanKind.SERVER, "no/such/method");
    String code = Integer.toString(answer(unknown).path("error").path("code").asInt());
    assertNotEquals("0", code, unknown.body());
    assertEquals(code, attribute(failed, "error.type"));
    assertEquals(code, attribute(failed, "rpc.response.status_code"));
  }

  @Test
  void aCallRefusedForWantOfASessionStillHasItsClientSpanSayingWhy() {
    // a server that cannot start: its key's circuit opens after a few failed attempts, and from
    // then on calls are refused at once (bounded: the circuit opens within these attempts)
    SpanData refused = null;
    for (int attempt = 0; attempt < 8 && refused == null; attempt++) {
      JsonRpcResponse answer =
          TestGateway.await(
              traced.supervisor.request(
                  "tracing-" + attempt,
                  "down",
                  "tools/call",
                  TestGateway.json("{\"name\":\"echo\",\"arguments\":{}}"),
                  Duration.ofSeconds(5)));
      assertTrue(answer.isError(), answer.toString());
      refused =
          spans.getFinishedSpanItems().stream()
              .filter(span -> span.getKind() == SpanKind.CLIENT)
              .filter(
                  span -> span.getEvents().stream().anyMatch(e -> e.getName().equals("refused")))
              .findFirst()
              .orElse(null);
    }
    assertTrue(refused != null, "a refused call's span: " + spans.getFinishedSpanItems());
    assertEquals("tools/call echo", refused.getName());
    assertEquals(
        Integer.toString(JsonRpcErrorCodes.UPSTREAM_UNAVAILABLE), attribute(refused, "error.type"));
    assertEquals("pipe", attribute(refused, "network.transport"));
  }

  @Test
  void withTracingOffTheClientsContextPassesUntouched() {
    String session = untraced.initialize(REMOTE);
    HttpResponse<String> response =
        untraced.post(REMOTE, session, traceContextCall(10, TRACEPARENT));
    assertEquals(TRACEPARENT, TestGateway.text(answer(response)));
    HttpResponse<String> none =
        untraced.post(REMOTE, session, TestGateway.callTool(11, FixtureTools.TRACE_CONTEXT, "{}"));
    assertEquals("none", TestGateway.text(answer(none)), "no context invented");
  }

  private static String traceContextCall(int id, String traceparent) {
    return TestGateway.request(
        id,
        "tools/call",
        "{\"name\":\""
            + FixtureTools.TRACE_CONTEXT
            + "\",\"arguments\":{},\"_meta\":{\"traceparent\":\""
            + traceparent
            + "\"}}");
  }

  private static String attribute(SpanData span, String key) {
    return span.getAttributes().get(AttributeKey.stringKey(key));
  }

  /**
   * The one finished span of this kind and name, waited for up to 10 s (spans end after answers).
   */
  private SpanData awaitSpan(SpanKind kind, String name) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    List<SpanData> found;
    do {
      found =
          spans.getFinishedSpanItems().stream()
              .filter(span -> span.getKind() == kind && span.getName().equals(name))
              .toList();
      if (found.size() == 1) {
        return found.get(0);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    } while (System.nanoTime() < deadline && found.isEmpty());
    throw new AssertionError(
        "expected one " + kind + " span " + name + ", got " + spans.getFinishedSpanItems());
  }
}
