package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/** The real fixture MCP server behind a real supervisor: configs, tool calls and their answers. */
final class RealFixture {

  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private RealFixture() {}

  /**
   * The fixture over stdio; {@code instance} goes into a JVM flag so that each instance is a
   * distinct server key.
   */
  static ServerConfig stdio(String name, int instance) {
    List<String> command = new ArrayList<>(FixtureProcess.stdioCommand());
    command.add(1, "-Dfixture.instance=" + instance);
    return server(
        name,
        new ServerSpec.Stdio(command.get(0), command.subList(1, command.size()), Map.of(), null));
  }

  static ServerConfig streamableHttp(String name, String url) {
    return server(name, new ServerSpec.StreamableHttp(URI.create(url), Map.of()));
  }

  private static ServerConfig server(String name, ServerSpec spec) {
    return ServerConfig.builder(name, spec)
        .isolation(Isolation.SHARED)
        .maxSessions(1)
        .maxInflightPerSession(1000)
        .requestTimeout(REQUEST_TIMEOUT)
        .idleTimeout(Duration.ofMinutes(5))
        .build();
  }

  /** {@code server} with {@code isolation: context}, four sessions at most. */
  static ServerConfig contextIsolated(ServerConfig server) {
    return server.toBuilder().isolation(Isolation.CONTEXT).maxSessions(4).build();
  }

  static SupervisorConfig config(ServerConfig... servers) {
    Map<String, ServerConfig> byName = new LinkedHashMap<>();
    for (ServerConfig server : servers) {
      byName.put(server.name(), server);
    }
    return new SupervisorConfig(byName, null);
  }

  static ObjectNode toolCall(String tool, String argument, Object value) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", tool);
    ObjectNode arguments = params.putObject("arguments");
    if (argument != null) {
      arguments.set(argument, JsonRpcCodec.mapper().valueToTree(value));
    }
    return params;
  }

  static CompletionStage<JsonRpcResponse> call(
      SessionSupervisor supervisor,
      String context,
      String server,
      String tool,
      String argument,
      Object value) {
    return supervisor.request(context, server, "tools/call", toolCall(tool, argument, value), null);
  }

  /** The text of a successful tools/call answer. */
  static String text(JsonRpcResponse response) {
    if (response.isError()) {
      throw new AssertionError("error answer: " + response.error());
    }
    return response.result().path("content").path(0).path("text").asText();
  }

  static JsonRpcResponse await(CompletionStage<JsonRpcResponse> answer, Duration within) {
    try {
      return answer.toCompletableFuture().get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("no answer within " + within + ": " + e, e);
    }
  }

  /** The pid of the process serving the server's session, as the fixture itself reports it. */
  static long pid(SessionSupervisor supervisor, String context, String server) {
    return Long.parseLong(
        text(
            await(
                call(supervisor, context, server, FixtureTools.PID, null, null), REQUEST_TIMEOUT)));
  }

  static boolean isSessionLost(JsonRpcResponse response) {
    if (!response.isError() || response.error().code() != JsonRpcErrorCodes.UPSTREAM_SESSION_LOST) {
      return false;
    }
    JsonNode data = response.error().data();
    return data != null && data.path("retryable").asBoolean(false);
  }
}
