package dev.mcpsupervisor.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Mutated MCP POSTs of both eras, drawn from a seed: the same seed gives the same bodies, headers
 * and endpoints. Each starts from a well-formed request, notification, client answer or batch a
 * client could send on {@code /mcp} or {@code /servers/fixture/mcp}, then takes zero to three
 * mutations: truncated JSON, {@code params} of another JSON type, {@code _meta} of another type or
 * with bad keys, ids that are null, fractional, huge or of another type, a method or a field a
 * method needs of another type or missing, batches with junk, and bad {@code MCP-Protocol-Version},
 * {@code Mcp-Method}, {@code Mcp-Name} and {@code Mcp-Session-Id} headers.
 */
final class EnvelopeFuzz {

  static final String AGGREGATED = "/mcp";
  static final String SINGLE = "/servers/fixture/mcp";

  /** Which downstream session a case names. */
  enum Session {
    /** No Mcp-Session-Id: a 2026-07-28 request, or a session-era one refused for the missing id. */
    NONE,
    /** The endpoint's 2025-11-25 session. */
    CURRENT,
    /** The endpoint's 2025-03-26 session, which may send batches. */
    BATCHING,
    /** An id no session has. */
    UNKNOWN
  }

  /**
   * One POST: where, under which session, with which headers (name, value pairs besides the
   * conforming Content-Type and Accept), and whether it calls a tool that sleeps (exempt from the
   * latency bound).
   */
  record Case(
      int index,
      String path,
      Session session,
      List<String> headers,
      String body,
      String label,
      boolean sleeps) {}

  private static final JsonNodeFactory NODES = JsonRpcCodec.mapper().getNodeFactory();

  private static final String[] METHODS = {
    "ping",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
    "logging/setLevel",
    "resources/subscribe",
    "server/discover"
  };

  private final Random random;
  private int nextId = 1;

  private EnvelopeFuzz(long seed) {
    this.random = new Random(seed);
  }

  /** {@code count} cases drawn from {@code seed}. */
  static List<Case> cases(long seed, int count) {
    EnvelopeFuzz fuzz = new EnvelopeFuzz(seed);
    List<Case> cases = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      cases.add(fuzz.next(i));
    }
    return cases;
  }

  private Case next(int index) {
    String path = random.nextBoolean() ? AGGREGATED : SINGLE;
    int era = random.nextInt(100);
    if (era < 45) {
      return sessionCase(index, path);
    }
    if (era < 90) {
      return statelessCase(index, path);
    }
    return batchCase(index, path);
  }

  // ---------------------------------------------------------------------------------- 2025 era

  private Case sessionCase(int index, String path) {
    Base base = sessionBase(path);
    ObjectNode message = base.message;
    List<String> labels = new ArrayList<>(List.of("2025:" + base.label));
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("MCP-Protocol-Version", ProtocolVersions.V2025_11_25);
    Session session = Session.CURRENT;
    int mutations = mutationCount();
    String body = null;
    for (int m = 0; m < mutations; m++) {
      int kind = random.nextInt(10);
      if (kind == 0) {
        session = random.nextBoolean() ? Session.UNKNOWN : Session.NONE;
        labels.add("session:" + session);
      } else if (kind == 1) {
        String version = pick("2026-07-28", "1999-01-01", "", "2025-11-25 ", "garbage/\u00e9");
        headers.put("MCP-Protocol-Version", ascii(version));
        labels.add("version-header:" + version);
      } else if (kind == 2) {
        headers.put("Mcp-Method", pick("tools/call", "ping", "x"));
        labels.add("method-header");
      } else {
        labels.add(mutate(message));
      }
    }
    body = serialize(message);
    if (random.nextInt(12) == 0) {
      body = damage(body);
      labels.add("damaged");
    }
    return new Case(
        index, path, session, flatten(headers), body, String.join(" ", labels), base.sleeps);
  }

  private Base sessionBase(String path) {
    int pick = random.nextInt(20);
    if (pick < 15) {
      return request(path, METHODS[random.nextInt(METHODS.length - 1)], false);
    }
    if (pick < 18) {
      ObjectNode notification = NODES.objectNode();
      notification.put("jsonrpc", "2.0");
      String method =
          pick(
              "notifications/cancelled",
              "notifications/roots/list_changed",
              "notifications/progress",
              "notifications/initialized");
      notification.put("method", method);
      ObjectNode params = notification.putObject("params");
      if (method.equals("notifications/cancelled")) {
        params.put("requestId", 987_654);
        params.put("reason", "fuzz");
      } else if (method.equals("notifications/progress")) {
        params.put("progressToken", "none");
        params.put("progress", 1);
      }
      return new Base(notification, method, false);
    }
    ObjectNode answer = NODES.objectNode();
    answer.put("jsonrpc", "2.0");
    answer.put("id", "gw-" + (1 + random.nextInt(3)));
    if (random.nextInt(4) == 0) {
      ObjectNode error = answer.putObject("error");
      error.put("code", -1);
      error.put("message", "declined");
    } else {
      ObjectNode result = answer.putObject("result");
      result.put("action", "accept");
      result.putObject("content").put("answer", "yes");
    }
    return new Base(answer, "client-answer", false);
  }

  // ----------------------------------------------------------------------------------- 2026-07-28

  private Case statelessCase(int index, String path) {
    Base base = request(path, METHODS[pickStatelessMethod()], true);
    ObjectNode message = base.message;
    List<String> labels = new ArrayList<>(List.of("2026:" + base.label));
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("MCP-Protocol-Version", ProtocolVersions.V2026_07_28);
    headers.put("Mcp-Method", message.path("method").asText());
    String name = nameOf(message);
    if (name != null) {
      headers.put("Mcp-Name", name);
    }
    Session session = Session.NONE;
    int mutations = mutationCount();
    for (int m = 0; m < mutations; m++) {
      int kind = random.nextInt(12);
      if (kind == 0) {
        if (random.nextBoolean()) {
          headers.remove("MCP-Protocol-Version");
        } else {
          headers.put("MCP-Protocol-Version", pick("2025-11-25", "2027-01-01", "", "x"));
        }
        labels.add("version-header");
      } else if (kind == 1) {
        if (random.nextBoolean()) {
          headers.remove("Mcp-Method");
        } else {
          headers.put("Mcp-Method", pick("TOOLS/CALL", "tools/list", "", "ping"));
        }
        labels.add("method-header");
      } else if (kind == 2) {
        int how = random.nextInt(4);
        if (how == 0) {
          headers.remove("Mcp-Name");
        } else if (how == 1) {
          headers.put("Mcp-Name", "=?base64?!!not base64!!?=");
        } else if (how == 2) {
          headers.put(
              "Mcp-Name",
              "=?base64?"
                  + Base64.getEncoder().encodeToString("other".getBytes(StandardCharsets.UTF_8))
                  + "?=");
        } else {
          headers.put("Mcp-Name", "not-the-name");
        }
        labels.add("name-header");
      } else if (kind == 3) {
        session = Session.UNKNOWN;
        labels.add("session:UNKNOWN");
      } else if (kind == 4) {
        labels.add(mutateInputs(message));
      } else {
        labels.add(mutate(message));
      }
    }
    String body = serialize(message);
    if (random.nextInt(12) == 0) {
      body = damage(body);
      labels.add("damaged");
    }
    return new Case(
        index, path, session, flatten(headers), body, String.join(" ", labels), base.sleeps);
  }

  /** Any method but logging/setLevel and resources/subscribe, which the revision removed. */
  private int pickStatelessMethod() {
    int index;
    do {
      index = random.nextInt(METHODS.length);
    } while (METHODS[index].equals("logging/setLevel")
        || METHODS[index].equals("resources/subscribe")
        || METHODS[index].equals("ping"));
    return index;
  }

  /** The 2026-07-28 inputResponses and requestState, of the right or a wrong shape. */
  private String mutateInputs(ObjectNode message) {
    ObjectNode params = paramsOf(message);
    if (params == null) {
      return "inputs:none";
    }
    int how = random.nextInt(8);
    switch (how) {
      case 0 -> params.set("inputResponses", NODES.arrayNode());
      case 1 -> params.put("inputResponses", 1);
      case 2 -> params.putObject("inputResponses").put("elicitation-1", "yes");
      case 3 -> params.putObject("inputResponses").putArray("sampling-1");
      case 4 -> params.put("requestState", 42);
      case 5 -> params.putObject("requestState");
      case 6 -> params.put("requestState", "not.a-state");
      default ->
          params.putObject("inputResponses").putObject("elicitation-1").put("action", "accept");
    }
    return "inputs:" + how;
  }

  // ------------------------------------------------------------------------------------- batches

  private Case batchCase(int index, String path) {
    ArrayNode batch = NODES.arrayNode();
    int size = 1 + random.nextInt(5);
    List<String> labels = new ArrayList<>(List.of("batch:" + size));
    boolean sleeps = false;
    for (int i = 0; i < size; i++) {
      int kind = random.nextInt(10);
      if (kind < 5) {
        Base base = request(path, METHODS[random.nextInt(METHODS.length - 1)], false);
        sleeps |= base.sleeps;
        if (random.nextBoolean()) {
          labels.add(mutate(base.message));
        }
        batch.add(base.message);
      } else if (kind < 8) {
        batch.add(junk());
        labels.add("junk");
      } else {
        Base answer = sessionBase(path);
        batch.add(answer.message);
      }
    }
    Session session = random.nextInt(5) == 0 ? Session.CURRENT : Session.BATCHING;
    String body = serialize(batch);
    if (random.nextInt(12) == 0) {
      body = damage(body);
      labels.add("damaged");
    }
    return new Case(
        index,
        path,
        session,
        List.of("MCP-Protocol-Version", ProtocolVersions.V2025_03_26),
        body,
        String.join(" ", labels),
        sleeps);
  }

  private JsonNode junk() {
    return switch (random.nextInt(7)) {
      case 0 -> NODES.numberNode(1);
      case 1 -> NODES.objectNode();
      case 2 -> NODES.textNode("junk");
      case 3 -> NODES.arrayNode().add(1);
      case 4 -> NODES.nullNode();
      case 5 -> NODES.objectNode().put("jsonrpc", "2.0").put("id", 5);
      default -> NODES.objectNode().put("jsonrpc", "2.0").put("method", "");
    };
  }

  // ------------------------------------------------------------------------------ well-formed
  // bases

  private record Base(ObjectNode message, String label, boolean sleeps) {}

  private Base request(String path, String method, boolean stateless) {
    ObjectNode request = NODES.objectNode();
    request.put("jsonrpc", "2.0");
    request.put("id", random.nextInt(3) == 0 ? NODES.textNode("s-" + nextId++) : id());
    request.put("method", method);
    ObjectNode params = NODES.objectNode();
    boolean sleeps = false;
    String prefix = path.equals(AGGREGATED) ? "fixture__" : "";
    String label = method;
    switch (method) {
      case "tools/call" -> {
        int tool = random.nextInt(5);
        ObjectNode arguments = NODES.objectNode();
        String name;
        if (tool == 0) {
          name = "add";
          arguments.put("a", 2).put("b", 3);
        } else if (tool == 1) {
          name = "sleep";
          arguments.put("ms", 20);
          sleeps = true;
        } else if (tool == 2) {
          name = "progress";
          arguments.put("steps", 2);
          params.putObject("_meta").put("progressToken", "p-" + nextId++);
        } else {
          name = "echo";
          arguments.put("message", "fuzz");
        }
        params.put("name", prefix + name);
        params.set("arguments", arguments);
        label = method + ":" + name;
      }
      case "prompts/get" -> {
        params.put("name", prefix + "greeting");
        params.putObject("arguments").put("name", "Ada");
      }
      case "resources/read", "resources/subscribe" -> params.put("uri", "fixture://static");
      case "completion/complete" -> {
        ObjectNode ref = params.putObject("ref");
        ref.put("type", "ref/prompt");
        ref.put("name", prefix + "greeting");
        params.putObject("argument").put("name", "name").put("value", "A");
      }
      case "logging/setLevel" -> params.put("level", "info");
      case "tools/list", "prompts/list", "resources/list" -> {
        if (random.nextInt(4) == 0) {
          params.put("cursor", "c");
        }
      }
      default -> {}
    }
    if (stateless) {
      ObjectNode meta =
          params.get("_meta") instanceof ObjectNode given ? given : params.putObject("_meta");
      meta.put("io.modelcontextprotocol/protocolVersion", ProtocolVersions.V2026_07_28);
      meta.putObject("io.modelcontextprotocol/clientCapabilities");
      meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "fuzz").put("version", "1");
    }
    if (!params.isEmpty() || stateless || random.nextBoolean()) {
      request.set("params", params);
    }
    return new Base(request, label, sleeps);
  }

  // ------------------------------------------------------------------------------------ mutations

  private int mutationCount() {
    int draw = random.nextInt(20);
    return draw < 3 ? 0 : draw < 13 ? 1 : draw < 18 ? 2 : 3;
  }

  /** One mutation of the message's envelope or of a field its method needs; answers its label. */
  private String mutate(ObjectNode message) {
    int kind = random.nextInt(9);
    switch (kind) {
      case 0 -> {
        message.set("params", oddParams());
        return "params:" + compact(message.get("params"));
      }
      case 1 -> {
        ObjectNode params = paramsOrNew(message);
        JsonNode meta = oddMeta();
        params.set("_meta", meta);
        return "_meta:" + compact(meta);
      }
      case 2 -> {
        if (!message.has("id")) {
          return "id:none";
        }
        JsonNode id = oddId();
        message.set("id", id);
        return "id:" + compact(id);
      }
      case 3 -> {
        JsonNode method =
            pickNode(
                NODES.textNode(""),
                NODES.numberNode(7),
                NODES.nullNode(),
                NODES.textNode("no/such"),
                NODES.textNode("TOOLS/CALL"));
        message.set("method", method);
        return "method:" + compact(method);
      }
      case 4, 5, 6 -> {
        return mutateField(message);
      }
      case 7 -> {
        message.put("jsonrpc", pick("1.0", "2", ""));
        return "jsonrpc";
      }
      default -> {
        ObjectNode params = paramsOf(message);
        if (params == null || params.isEmpty()) {
          message.remove("params");
          return "params:removed";
        }
        String field = params.fieldNames().next();
        params.remove(field);
        return "removed:" + field;
      }
    }
  }

  /** A field the message's method needs, set to another type, or removed. */
  private String mutateField(ObjectNode message) {
    ObjectNode params = paramsOf(message);
    if (message.has("result") && message.get("result") instanceof ObjectNode result) {
      JsonNode odd = pickNode(NODES.numberNode(5), NODES.arrayNode(), NODES.textNode("ok"));
      if (random.nextBoolean()) {
        message.set("result", odd);
        return "result:" + compact(odd);
      }
      result.set("_meta", odd);
      return "result._meta:" + compact(odd);
    }
    if (params == null) {
      return "field:none";
    }
    String method = message.path("method").asText("");
    String field =
        switch (method) {
          case "tools/call" -> pick("name", "arguments");
          case "prompts/get" -> pick("name", "arguments");
          case "resources/read", "resources/subscribe" -> "uri";
          case "completion/complete" -> pick("ref", "argument", "ref.type", "argument.value");
          case "logging/setLevel" -> "level";
          case "tools/list", "prompts/list", "resources/list" -> "cursor";
          case "notifications/cancelled" -> "requestId";
          case "notifications/progress" -> pick("progressToken", "progress");
          default -> "name";
        };
    JsonNode odd = oddValue();
    if (field.contains(".")) {
      String[] parts = field.split("\\.");
      if (params.get(parts[0]) instanceof ObjectNode inner) {
        inner.set(parts[1], odd);
      }
    } else if (random.nextInt(4) == 0) {
      params.remove(field);
      return "removed:" + field;
    } else {
      params.set(field, odd);
    }
    return field + ":" + compact(odd);
  }

  private JsonNode oddParams() {
    return switch (random.nextInt(6)) {
      case 0 -> NODES.arrayNode();
      case 1 ->
          NODES
              .arrayNode()
              .add(NODES.arrayNode().add(NODES.arrayNode().add(NODES.arrayNode().addArray())));
      case 2 -> NODES.textNode("params");
      case 3 -> NODES.numberNode(1);
      case 4 -> NODES.booleanNode(true);
      default -> NODES.arrayNode().add(NODES.objectNode().put("name", "echo"));
    };
  }

  private JsonNode oddMeta() {
    return switch (random.nextInt(8)) {
      case 0 -> NODES.numberNode(new BigDecimal("1e308"));
      case 1 -> NODES.arrayNode();
      case 2 -> NODES.textNode("meta");
      case 3 -> NODES.nullNode();
      case 4 -> NODES.objectNode().put("bad key!", 1);
      case 5 -> NODES.objectNode().set("progressToken", NODES.objectNode());
      case 6 -> NODES.objectNode().put("-leading", 1);
      default -> NODES.objectNode().put("com.example/trailing-", true);
    };
  }

  private JsonNode oddId() {
    return switch (random.nextInt(8)) {
      case 0 -> NODES.nullNode();
      case 1 -> NODES.numberNode(new BigDecimal("1.5"));
      case 2 -> NODES.numberNode(new BigInteger("9007199254740993"));
      case 3 -> NODES.numberNode(new BigDecimal("1e308"));
      case 4 -> NODES.objectNode();
      case 5 -> NODES.arrayNode().add(1);
      case 6 -> NODES.booleanNode(false);
      default -> NODES.numberNode(new BigInteger("-99999999999999999999999"));
    };
  }

  private JsonNode oddValue() {
    return switch (random.nextInt(7)) {
      case 0 -> NODES.numberNode(1);
      case 1 -> NODES.arrayNode();
      case 2 -> NODES.objectNode();
      case 3 -> NODES.nullNode();
      case 4 -> NODES.booleanNode(true);
      case 5 -> NODES.textNode("x".repeat(1 + random.nextInt(40)));
      default -> NODES.numberNode(new BigDecimal("1e308"));
    };
  }

  /** Damage at the byte level: truncation, a stray character, a duplicate member. */
  private String damage(String body) {
    int how = random.nextInt(4);
    if (how == 0 && body.length() > 2) {
      return body.substring(0, 1 + random.nextInt(body.length() - 1));
    }
    if (how == 1) {
      int at = random.nextInt(body.length());
      return body.substring(0, at) + pick("\"", "}", ",", "\\", "\u0000") + body.substring(at);
    }
    if (how == 2 && body.startsWith("{")) {
      return "{\"jsonrpc\":\"2.0\"," + body.substring(1);
    }
    return "[".repeat(70) + "]".repeat(70);
  }

  // -------------------------------------------------------------------------------------- helpers

  private JsonNode id() {
    return NODES.numberNode(nextId++);
  }

  private static ObjectNode paramsOf(ObjectNode message) {
    return message.get("params") instanceof ObjectNode params ? params : null;
  }

  private static ObjectNode paramsOrNew(ObjectNode message) {
    ObjectNode params = paramsOf(message);
    return params != null ? params : message.putObject("params");
  }

  private static String nameOf(ObjectNode message) {
    JsonNode params = message.path("params");
    return switch (message.path("method").asText("")) {
      case "tools/call", "prompts/get" -> params.path("name").asText(null);
      case "resources/read" -> params.path("uri").asText(null);
      default -> null;
    };
  }

  @SafeVarargs
  private <T> T pick(T... choices) {
    return choices[random.nextInt(choices.length)];
  }

  private JsonNode pickNode(JsonNode... choices) {
    return choices[random.nextInt(choices.length)];
  }

  private static List<String> flatten(Map<String, String> headers) {
    List<String> flat = new ArrayList<>();
    headers.forEach(
        (name, value) -> {
          flat.add(name);
          flat.add(value);
        });
    return List.copyOf(flat);
  }

  /** Header values must be visible ASCII for the HTTP client; others are replaced by '?'. */
  private static String ascii(String value) {
    StringBuilder out = new StringBuilder();
    for (char c : value.toCharArray()) {
      out.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return out.toString().trim();
  }

  private static String serialize(JsonNode node) {
    try {
      return JsonRpcCodec.mapper().writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String compact(JsonNode node) {
    String text = node.toString();
    return text.length() > 24 ? text.substring(0, 24) + "…" : text;
  }
}
