package dev.mcpsupervisor.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.function.Predicate;

/**
 * The plain rules of a multi round-trip request's inputs (MCP 2026-07-28, basic/patterns/mrtr) when
 * they come from a session-era upstream's server requests: which client capability each needs, the
 * key it is asked under, the request object a caller is shown, and whether an answer is one. Shared
 * by the gateway's input_required bridge and the embedded call API, so both name and check inputs
 * alike.
 */
public final class InputRequests {

  /** Where an upstream may name the key its request goes under. */
  public static final String INPUT_KEY_META = "dev.mcpsupervisor/inputKey";

  private InputRequests() {}

  /**
   * The client capability a server request needs ({@code sampling}, {@code elicitation}, {@code
   * roots}), or null for one no client capability covers.
   */
  public static String requiredCapability(String method) {
    return switch (method) {
      case McpMethods.SAMPLING_CREATE_MESSAGE -> "sampling";
      case McpMethods.ELICITATION_CREATE -> "elicitation";
      case McpMethods.ROOTS_LIST -> "roots";
      default -> null;
    };
  }

  /**
   * Whether {@code response} is a well-formed answer to a request of {@code method}: a malformed
   * answer counts as none (the input is asked again rather than handing the upstream what it cannot
   * read).
   */
  public static boolean isAnswerTo(String method, JsonNode response) {
    if (response == null || !response.isObject()) {
      return false;
    }
    return switch (method) {
      case McpMethods.ELICITATION_CREATE -> response.path("action").isTextual();
      case McpMethods.SAMPLING_CREATE_MESSAGE ->
          response.path("role").isTextual() && response.has("content");
      case McpMethods.ROOTS_LIST -> response.path("roots").isArray();
      default -> false;
    };
  }

  /**
   * The entry of {@code inputRequests} for a server request: its method and params, key removed.
   */
  public static ObjectNode inputRequest(JsonRpcRequest asked) {
    ObjectNode inputRequest = JsonRpcCodec.emptyObject();
    inputRequest.put("method", asked.method());
    inputRequest.set("params", paramsWithoutKey(asked));
    return inputRequest;
  }

  /** {@code params} naming {@code key} as the key its request goes under (a copy). */
  public static ObjectNode withKey(JsonNode params, String key) {
    ObjectNode copy =
        params instanceof ObjectNode given ? given.deepCopy() : JsonRpcCodec.emptyObject();
    ObjectNode meta =
        copy.get("_meta") instanceof ObjectNode given ? given : copy.putObject("_meta");
    meta.put(INPUT_KEY_META, key);
    return copy;
  }

  /** {@code asked} as a client sees it: without the key an upstream named for its round. */
  public static JsonRpcRequest withoutKey(JsonRpcRequest asked) {
    if (!(asked.params() instanceof ObjectNode)) {
      return asked;
    }
    JsonNode params = paramsWithoutKey(asked);
    return params == asked.params() ? asked : asked.withParams(params);
  }

  private static JsonNode paramsWithoutKey(JsonRpcRequest asked) {
    if (!(asked.params() instanceof ObjectNode params)) {
      return JsonRpcCodec.emptyObject();
    }
    if (!(params.get("_meta") instanceof ObjectNode meta) || !meta.has(INPUT_KEY_META)) {
      return params;
    }
    ObjectNode copy = params.deepCopy();
    ObjectNode metaCopy = (ObjectNode) copy.get("_meta");
    metaCopy.remove(INPUT_KEY_META);
    if (metaCopy.isEmpty()) {
      copy.remove("_meta");
    }
    return copy;
  }

  /**
   * The keys of one request's inputs: the upstream's own when it names one in {@code
   * _meta["dev.mcpsupervisor/inputKey"]} that is free, else made up from the method's kind ({@code
   * elicitation-1}). One per request whose inputs it names; not thread-safe.
   */
  public static final class Keys {

    private int generated;

    /**
     * @param taken whether a key is in use already (among the inputs still waiting)
     */
    public String keyOf(JsonRpcRequest asked, Predicate<String> taken) {
      JsonNode named =
          asked.params() == null ? null : asked.params().path("_meta").get(INPUT_KEY_META);
      if (named != null && named.isTextual() && !taken.test(named.asText())) {
        return named.asText();
      }
      int slash = asked.method().indexOf('/');
      String kind = slash < 0 ? asked.method() : asked.method().substring(0, slash);
      String key;
      do {
        key = kind + "-" + ++generated;
      } while (taken.test(key));
      return key;
    }
  }
}
