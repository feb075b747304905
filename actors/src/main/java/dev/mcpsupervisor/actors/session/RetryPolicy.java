package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Which calls may be sent again: read-only methods, and tools whose annotations (learnt from
 * tools/list) say readOnlyHint or idempotentHint; and which errors mean "ask again later".
 */
final class RetryPolicy {

  /**
   * Wording of "not initialized yet" errors (GitHub's gateway: "invalid during session
   * initialization").
   */
  private static final Pattern STILL_INITIALIZING =
      Pattern.compile(
          "(?i)(not (yet )?initiali[sz]ed|still initiali[sz]ing|during (session )?initiali[sz]ation"
              + "|before initiali[sz]ation|initiali[sz]ation (is )?(not complete|in progress|pending))");

  /** Tool name → whether its annotations say it is safe to retry. */
  private final Map<String, Boolean> safeTools = new HashMap<>();

  /** Pages of the session's own tools/list fetched since the tools were last forgotten. */
  private int toolsPages;

  void learnTools(JsonNode toolsListResult) {
    for (JsonNode tool : toolsListResult.path("tools")) {
      JsonNode annotations = tool.path("annotations");
      boolean safe =
          annotations.path("readOnlyHint").asBoolean(false)
              || annotations.path("idempotentHint").asBoolean(false);
      safeTools.put(tool.path("name").asText(), safe);
    }
  }

  /** One page of the session's own tools/list: answers whether another page may be fetched. */
  boolean learnToolsPage(JsonNode toolsListResult, int maxPages) {
    toolsPages++;
    learnTools(toolsListResult);
    return toolsPages < maxPages;
  }

  void forgetTools() {
    safeTools.clear();
    toolsPages = 0;
  }

  boolean isSafeToRetry(TrackedCall call) {
    if (McpMethods.READ_ONLY.contains(call.method())) {
      return true;
    }
    if (!McpMethods.TOOLS_CALL.equals(call.method()) || call.params == null) {
      return false;
    }
    return safeTools.getOrDefault(call.params.path("name").asText(), false);
  }

  /**
   * The backend is up but not ready for requests yet: the call is retried with backoff within its
   * deadline.
   */
  static boolean saysStillInitializing(JsonRpcResponse response) {
    return response.isError() && STILL_INITIALIZING.matcher(response.error().message()).find();
  }
}
