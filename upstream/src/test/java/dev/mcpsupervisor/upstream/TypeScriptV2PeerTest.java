package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The TypeScript SDK v2's 2026-07-28-only servers (legacy 'reject') behind our connectors, as the
 * session actor would drive them. Needs node and the scripts of the SDK's test peers, so it runs
 * only when asked: {@code -Dtsv2.dir=/work/scratch/tsv2} (see /work/notes/tsv2-peers.md).
 */
@EnabledIfSystemProperty(named = "tsv2.dir", matches = ".+")
class TypeScriptV2PeerTest {

  private static final Path DIR = Path.of(System.getProperty("tsv2.dir", "."));

  @Test
  void stdioServerWithProtocolAuto() throws Exception {
    drive(stdio(UpstreamProtocol.AUTO));
  }

  @Test
  void stdioServerWithProtocolStateless() throws Exception {
    drive(stdio(UpstreamProtocol.STATELESS));
  }

  @Test
  void httpServerWithProtocolAuto() throws Exception {
    httpServer(UpstreamProtocol.AUTO);
  }

  @Test
  void httpServerWithProtocolStateless() throws Exception {
    httpServer(UpstreamProtocol.STATELESS);
  }

  private static ServerSpec stdio(UpstreamProtocol protocol) {
    return new ServerSpec.Stdio(
        "node", List.of(DIR.resolve("v2-server-stdio.mjs").toString()), Map.of(), null, protocol);
  }

  private void httpServer(UpstreamProtocol protocol) throws Exception {
    Process node =
        new ProcessBuilder("node", DIR.resolve("v2-server-http.mjs").toString(), "0")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      assertTrue(line != null && line.startsWith("listening "), "server said: " + line);
      URI url = URI.create(line.substring("listening ".length()).trim());
      drive(new ServerSpec.StreamableHttp(url, Map.of(), protocol));
    } finally {
      node.destroy();
      node.waitFor(5, TimeUnit.SECONDS);
    }
  }

  private void drive(ServerSpec spec) throws Exception {
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection = Rpc.await(DefaultConnectors.create().connect(spec, listener));
    try {
      ObjectNode params = JsonRpcCodec.emptyObject();
      params.put("protocolVersion", ProtocolVersions.LATEST);
      ObjectNode capabilities = params.putObject("capabilities");
      capabilities.putObject("sampling");
      capabilities.putObject("elicitation");
      params.putObject("clientInfo").put("name", "mcp-supervisor").put("version", "test");
      Rpc.send(connection, new JsonRpcRequest(Rpc.id(0), McpMethods.INITIALIZE, params));
      JsonRpcResponse initialized = listener.awaitResponse(Rpc.id(0));
      report(spec, "initialize", initialized);
      assertEquals(ProtocolVersions.LATEST, initialized.result().path("protocolVersion").asText());
      assertEquals(
          "tsv2-test-server", initialized.result().path("serverInfo").path("name").asText());
      Rpc.send(connection, Rpc.initialized());

      Rpc.send(connection, new JsonRpcRequest(Rpc.id(1), McpMethods.TOOLS_LIST, null));
      JsonRpcResponse tools = listener.awaitResponse(Rpc.id(1));
      report(spec, "tools/list", tools);
      assertEquals(3, tools.result().path("tools").size());
      assertFalse(tools.result().has("resultType"));

      ObjectNode echo = JsonRpcCodec.emptyObject().put("text", "ping");
      Rpc.send(connection, Rpc.callTool(2, "echo", echo));
      assertEquals("ping", Rpc.text(listener.awaitResponse(Rpc.id(2))));

      // a stateless request's send completes with its exchange: here only after the answer below
      connection.send(Rpc.callTool(3, "ask_name", null));
      JsonRpcRequest elicit = listener.awaitRequest(McpMethods.ELICITATION_CREATE);
      report(spec, "asked", elicit);
      ObjectNode accepted = JsonRpcCodec.emptyObject().put("action", "accept");
      accepted.putObject("content").put("name", "Alice");
      Rpc.send(connection, JsonRpcResponse.success(elicit.id(), accepted));
      JsonRpcResponse greeted = listener.awaitResponse(Rpc.id(3));
      report(spec, "ask_name", greeted);
      assertEquals("hello Alice", Rpc.text(greeted));

      connection.send(
          Rpc.callTool(4, "ask_model", JsonRpcCodec.emptyObject().put("prompt", "hi?")));
      JsonRpcRequest sample = listener.awaitRequest(McpMethods.SAMPLING_CREATE_MESSAGE);
      ObjectNode sampled = JsonRpcCodec.emptyObject();
      sampled.put("role", "assistant").put("model", "m").put("stopReason", "endTurn");
      sampled.putObject("content").put("type", "text").put("text", "model says hi");
      Rpc.send(connection, JsonRpcResponse.success(sample.id(), sampled));
      assertEquals("model says hi", Rpc.text(listener.awaitResponse(Rpc.id(4))));

      Rpc.send(connection, new JsonRpcRequest(Rpc.id(5), McpMethods.PING, null));
      JsonRpcResponse pong = listener.awaitResponse(Rpc.id(5));
      report(spec, "ping", pong);
      assertFalse(pong.isError());

      ObjectNode level = JsonRpcCodec.emptyObject().put("level", "info");
      Rpc.send(connection, new JsonRpcRequest(Rpc.id(6), McpMethods.LOGGING_SET_LEVEL, level));
      assertFalse(listener.awaitResponse(Rpc.id(6)).isError());
      Rpc.send(connection, Rpc.callTool(7, "echo", JsonRpcCodec.emptyObject().put("text", "x")));
      assertEquals("x", Rpc.text(listener.awaitResponse(Rpc.id(7))));
      report(spec, "passed over", listener.passedOver);
    } finally {
      Rpc.await(connection.close());
    }
  }

  private static void report(ServerSpec spec, String step, Object what) {
    System.out.println(
        "[tsv2 " + spec.transport() + " " + spec.protocol() + "] " + step + ": " + what);
  }
}
