package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import dev.mcpsupervisor.app.stdio.StdioCommand;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stdio front in this JVM ({@link StdioCommand#serve} on pipes), the fixture server behind it:
 * the client gets what the gateway gives an HTTP client, through the in-process endpoint (no
 * socket): answers, progress on a POST's stream, a sampling round, {@code list_changed}, a
 * cancelled call that is never answered, both eras, errors as JSON-RPC errors; and stdin's end ends
 * the front and every server process. {@code StdioFrontIT} does the same with the jar.
 */
@Timeout(180)
class StdioFrontInJvmTest {

  private static final Duration EXIT_AFTER_STDIN = Duration.ofSeconds(30);
  private static final int PIPE_BYTES = 1 << 20;

  /** A front serving on pipes, and its client. */
  private record Front(StdioClient client, PipedOutputStream stdin, CompletableFuture<Integer> exit)
      implements AutoCloseable {

    static Front start(Path config, String server) throws IOException {
      PipedOutputStream stdin = new PipedOutputStream();
      PipedInputStream frontIn = new PipedInputStream(stdin, PIPE_BYTES);
      PipedInputStream stdout = new PipedInputStream(PIPE_BYTES);
      PipedOutputStream frontOut = new PipedOutputStream(stdout);
      CompletableFuture<Integer> exit = new CompletableFuture<>();
      Thread serving =
          new Thread(
              () -> {
                try {
                  exit.complete(
                      StdioCommand.serve(
                          ConfigLoader.load(config),
                          server,
                          frontIn,
                          frontOut,
                          CompletableFuture::new,
                          new PrintWriter(System.err, true)));
                } catch (RuntimeException | Error e) {
                  exit.completeExceptionally(e);
                }
              },
              "stdio-front-in-jvm");
      serving.setDaemon(true);
      serving.start();
      return new Front(StdioClient.on(stdin, stdout), stdin, exit);
    }

    /** Closes stdin and answers the front's exit status, bounded. */
    int endStdin() throws Exception {
      client.closeStdin();
      return exit.get(EXIT_AFTER_STDIN.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
      try {
        stdin.close(); // ends the front if a test failed before it did
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @Test
  void aSessionGetsEveryBehaviourOfTheGateway(@TempDir Path dir) throws Exception {
    try (Front front = Front.start(fixture(dir), null)) {
      StdioClient client = front.client();
      assertTrue(client.fixtureBasics().contains("fixture__echo"));

      // list_changed: the upstream's, told to the client (on the session's GET stream)
      List<JsonNode> around = new ArrayList<>();
      client.request(
          5, "tools/call", StdioClient.toolCall("fixture__trigger_list_changed", "{}"), around);
      for (int i = 0; i < 20 && around.stream().noneMatch(StdioFrontInJvmTest::toolsChanged); i++) {
        around.add(client.next());
      }
      assertTrue(around.stream().anyMatch(StdioFrontInJvmTest::toolsChanged), around.toString());

      // a cancelled call is never answered; the session goes on (the front posts each message on
      // its own, so a ping answered after the call was sent lets the call arrive first)
      client.send(
          "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":"
              + StdioClient.toolCall("fixture__sleep", "{\"ms\":60000}")
              + "}");
      List<JsonNode> after = new ArrayList<>();
      client.request(60, "ping", null, after);
      client.send(
          "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":6}}");
      assertEquals("{}", client.request(7, "ping", null, after).path("result").toString());
      assertEquals(
          "still",
          StdioClient.text(
              client.request(
                  8,
                  "tools/call",
                  StdioClient.toolCall("fixture__echo", "{\"message\":\"still\"}"),
                  after)));
      assertTrue(after.stream().noneMatch(m -> m.path("id").asInt(-1) == 6), after.toString());

      // errors: the front's own (not JSON), and the gateway's (no such method)
      client.send("this is not JSON");
      assertEquals(-32700, client.next().path("error").path("code").asInt());
      JsonNode unknown = client.request(9, "no/such/method", null);
      assertEquals(-32601, unknown.path("error").path("code").asInt(), unknown.toString());

      ProcessHandle upstream =
          ProcessHandle.of(
                  Long.parseLong(
                      StdioClient.text(
                          client.request(
                              10, "tools/call", StdioClient.toolCall("fixture__pid", "{}")))))
              .orElseThrow();
      assertEquals(0, front.endStdin(), "stdin's end ends the front");
      assertTrue(
          ChildProcesses.awaitExit(List.of(upstream), Duration.ofSeconds(10)),
          "no server process outlives the front");
      assertEquals(List.of(), client.notJsonRpc, "stdout carries JSON-RPC only");
    }
  }

  @Test
  void aStatelessClientOfOneServerGetsItsAnswersAndItsErrors(@TempDir Path dir) throws Exception {
    try (Front front = Front.start(fixture(dir), "fixture")) {
      StdioClient client = front.client();
      JsonNode echoed = client.request(1, "tools/call", stateless("echo", "2026-07-28"));
      assertEquals("stateless", StdioClient.text(echoed), echoed.toString());
      // refused by the gateway with HTTP 400: its JSON-RPC error, for this request
      JsonNode refused = client.request(2, "tools/call", stateless("echo", "2099-01-01"));
      assertEquals(-32022, refused.path("error").path("code").asInt(), refused.toString());
      assertEquals(0, front.endStdin());
      assertEquals(List.of(), client.notJsonRpc, "stdout carries JSON-RPC only");
    }
  }

  /** A 2026-07-28 (or another version's) tools/call of {@code tool}, echoing "stateless". */
  private static ObjectNode stateless(String tool, String version) {
    ObjectNode params = StdioClient.toolCall(tool, "{\"message\":\"stateless\"}");
    ObjectNode meta = params.putObject(StatelessEnvelope.META);
    meta.put(StatelessEnvelope.META_PROTOCOL_VERSION, version);
    meta.putObject(StatelessEnvelope.META_CLIENT_CAPABILITIES);
    meta.putObject(StatelessEnvelope.META_CLIENT_INFO)
        .put("name", "stdio-test")
        .put("version", "1");
    return params;
  }

  private static boolean toolsChanged(JsonNode message) {
    return "notifications/tools/list_changed".equals(message.path("method").asText());
  }

  private static Path fixture(Path dir) {
    List<String> fixture = FixtureProcess.stdioCommand();
    return GatewayConfigFile.write(
        dir.resolve("servers.json"),
        Map.of(
            "fixture",
            GatewayConfigFile.stdio(
                fixture.get(0), fixture.subList(1, fixture.size()).toArray(String[]::new))));
  }
}
