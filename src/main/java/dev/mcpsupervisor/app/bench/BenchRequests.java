package dev.mcpsupervisor.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** The HTTP requests of one era: initialize, notifications/initialized, tools/call, DELETE. */
public final class BenchRequests {

  public static final String SESSION_HEADER = "Mcp-Session-Id";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CLIENT_NAME = "mcp-supervisor-bench";

  private final Era era;
  private final List<URI> targets;

  /** Which target the next request goes to. */
  private final AtomicLong next = new AtomicLong();

  private final Duration timeout;
  private final String tool;
  private final String argument;

  public BenchRequests(BenchPlan plan, Era era) {
    this.era = era;
    this.targets = plan.targets();
    this.timeout = plan.timeout();
    this.tool = plan.tool();
    this.argument = plan.argument();
  }

  public HttpRequest initialize() {
    ObjectNode params = JSON.createObjectNode().put("protocolVersion", era.protocolVersion());
    params.putObject("capabilities");
    params.putObject("clientInfo").put("name", CLIENT_NAME).put("version", "1");
    return post(null, request(0, "initialize", params)).build();
  }

  public HttpRequest initialized(String sessionId) {
    ObjectNode notification =
        JSON.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized");
    return post(sessionId, notification).build();
  }

  /** A tools/call sending {@code payload}; stateless requests carry _meta and the Mcp-* headers. */
  public HttpRequest toolCall(String sessionId, long id, String payload) {
    ObjectNode params = JSON.createObjectNode().put("name", tool);
    params.putObject("arguments").put(argument, payload);
    if (era == Era.STATELESS) {
      ObjectNode meta = params.putObject(StatelessEnvelope.META);
      meta.put(StatelessEnvelope.META_PROTOCOL_VERSION, era.protocolVersion());
      meta.putObject(StatelessEnvelope.META_CLIENT_INFO)
          .put("name", CLIENT_NAME)
          .put("version", "1");
      meta.putObject(StatelessEnvelope.META_CLIENT_CAPABILITIES);
    }
    HttpRequest.Builder request = post(sessionId, request(id, "tools/call", params));
    if (era == Era.STATELESS) {
      request
          .header(StatelessEnvelope.METHOD_HEADER, "tools/call")
          .header(StatelessEnvelope.NAME_HEADER, tool);
    }
    return request.build();
  }

  public HttpRequest delete(String sessionId) {
    return HttpRequest.newBuilder(nextTarget())
        .timeout(timeout)
        .header(SESSION_HEADER, sessionId)
        .header(StatelessEnvelope.PROTOCOL_VERSION_HEADER, era.protocolVersion())
        .DELETE()
        .build();
  }

  private URI nextTarget() {
    return targets.size() == 1
        ? targets.get(0)
        : targets.get((int) Math.floorMod(next.getAndIncrement(), (long) targets.size()));
  }

  private static ObjectNode request(long id, String method, ObjectNode params) {
    ObjectNode request =
        JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
    request.set("params", params);
    return request;
  }

  private HttpRequest.Builder post(String sessionId, ObjectNode body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(nextTarget())
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header(StatelessEnvelope.PROTOCOL_VERSION_HEADER, era.protocolVersion())
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    if (sessionId != null) {
      request.header(SESSION_HEADER, sessionId);
    }
    return request;
  }
}
