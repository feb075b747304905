package dev.mcpsupervisor.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.fixture.ScriptableFixture;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncResourceSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.ReadResourceResult;
import io.modelcontextprotocol.spec.McpSchema.Resource;
import io.modelcontextprotocol.spec.McpSchema.TextResourceContents;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.McpSchema.ToolAnnotations;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * A {@link Script} being served: its tools as the fixture's tool specifications, the gate every
 * message a client sends passes (recorded; refused initializes and malformed answers given there),
 * and the faults its steps trigger, which the wire carries out ({@link Faults}).
 */
final class ScriptRuntime {

  /** What ending or cutting off the server means on its wire. */
  interface Faults {
    void exit(int code);

    void drop();
  }

  /** A malformed answer's {@code error}: a string, where JSON-RPC has an object. */
  static final String MALFORMED_ERROR = "malformed answer";

  private final Script script;
  private final Journal journal;
  private final Faults faults;
  private final ScriptableFixture fixture = new ScriptableFixture();
  private final Map<String, ToolScript> tools = new ConcurrentHashMap<>();
  // the calls of each tool received, by this process and (read once, at its start) those before it
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

  ScriptRuntime(Scenario scenario, Journal journal, Faults faults) {
    this.script = new Script();
    scenario.define(script);
    this.journal = journal;
    this.faults = faults;
    tools.putAll(script.tools);
    journal.entries("received").forEach(entry -> count(entry.path("message")));
    fixture.publish(
        script.tools.values().stream().map(this::specification).toList(),
        script.resources.entrySet().stream()
            .map(resource -> resource(resource.getKey(), resource.getValue()))
            .toList());
  }

  ScriptableFixture fixture() {
    return fixture;
  }

  /**
   * Records a start of the server; whether the script says this one exits at once ({@link
   * Script#exitOnStart}), and with which status (0: it does not).
   */
  int started(long pid) {
    ObjectNode start = Journal.entry("start");
    start.put("pid", pid);
    journal.append(start);
    return journal.entries("start").size() <= script.exitsOnStart ? script.exitOnStartCode : 0;
  }

  /**
   * Records a message a client sent and answers it here when the script says so: a refused
   * initialize, a malformed answer to a tools/call.
   *
   * @return the answer to send at once, or null to let the server answer
   */
  ObjectNode gate(JsonNode message) {
    ObjectNode received = Journal.entry("received");
    received.set("message", message);
    journal.append(received);
    count(message);
    JsonNode id = message.get("id");
    String method = message.path("method").asText("");
    if (id == null) {
      return null;
    }
    if (method.equals("initialize")
        && journal.entries("refused").size() < script.refusedInitializes) {
      journal.append(Journal.entry("refused"));
      ObjectNode answer = envelope(id);
      ObjectNode error = answer.putObject("error");
      error.put("code", -32603);
      error.put("message", "initialize refused by the script");
      return answer;
    }
    if (method.equals("tools/call")) {
      String name = message.path("params").path("name").asText();
      ToolScript tool = tools.get(name);
      if (tool != null && tool.step(callIndex(name)) == ToolScript.MALFORMED) {
        ObjectNode answer = envelope(id);
        answer.put("error", MALFORMED_ERROR);
        return answer;
      }
    }
    return null;
  }

  void exit(int code) {
    faults.exit(code);
  }

  void drop() {
    faults.drop();
  }

  void clientAnswered(String method, Object answer) {
    ObjectNode entry = Journal.entry("clientAnswer");
    entry.put("method", method);
    entry.set("answer", Journal.MAPPER.valueToTree(answer));
    journal.append(entry);
  }

  Mono<Void> addTool(ToolScript tool) {
    tools.put(tool.name, tool);
    return fixture.addTool(specification(tool));
  }

  Mono<Void> removeTool(String name) {
    tools.remove(name);
    return fixture.removeTool(name);
  }

  Mono<Void> resourceUpdated(String uri) {
    return fixture.resourceUpdated(uri);
  }

  /**
   * Which call of the tool this is (0 the first), across restarts: the calls of it received so far,
   * less this one. Calls of one tool that overlap may both be numbered by the later one.
   */
  private int callIndex(String tool) {
    AtomicInteger received = calls.get(tool);
    return received == null ? 0 : Math.max(0, received.get() - 1);
  }

  /**
   * The tool a message calls, or null when it is not a call to count: a 2026-07-28 call's later
   * rounds (with {@code requestState}) are the same call.
   */
  private static String calledTool(JsonNode message) {
    boolean counted =
        "tools/call".equals(message.path("method").asText())
            && message.has("id")
            && !message.path("params").has("requestState");
    return counted ? message.path("params").path("name").asText() : null;
  }

  private void count(JsonNode message) {
    String tool = calledTool(message);
    if (tool != null) {
      calls.computeIfAbsent(tool, any -> new AtomicInteger()).incrementAndGet();
    }
  }

  private AsyncToolSpecification specification(ToolScript tool) {
    return AsyncToolSpecification.builder()
        .tool(
            Tool.builder(tool.name, tool.inputSchema)
                .description(tool.description)
                .annotations(annotations(tool))
                .build())
        .callHandler(
            (exchange, request) ->
                Mono.defer(
                    () ->
                        tool.step(callIndex(tool.name))
                            .run(new ToolScript.Call(exchange, request, this))))
        .build();
  }

  /** The tool's hints, or none when it has none (as a tool without annotations is listed). */
  private static ToolAnnotations annotations(ToolScript tool) {
    if (!tool.readOnly && !tool.idempotent) {
      return null;
    }
    return ToolAnnotations.builder()
        .readOnlyHint(tool.readOnly)
        .idempotentHint(tool.idempotent)
        .build();
  }

  private static AsyncResourceSpecification resource(String uri, String text) {
    return new AsyncResourceSpecification(
        Resource.builder(uri, uri).mimeType("text/plain").build(),
        (exchange, request) ->
            Mono.just(
                ReadResourceResult.builder(
                        List.of(
                            TextResourceContents.builder(uri, text).mimeType("text/plain").build()))
                    .build()));
  }

  private static ObjectNode envelope(JsonNode id) {
    ObjectNode message = Journal.MAPPER.createObjectNode();
    message.put("jsonrpc", "2.0");
    message.set("id", id);
    return message;
  }
}
