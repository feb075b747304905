package dev.mcpsupervisor.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.SupervisorException;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * A server's {@code maxMessageBytes} reaches its connections: an answer over it fails its call with
 * -32015 (HTTP; the session goes on) or ends the stdio connection, which is restarted.
 */
@McpSupervisorTest
class UpstreamLimitsTest {

  private static final int LIMIT = 64 * 1024;
  private static final String BIG = "x".repeat(2 * LIMIT);

  /** Answers the message it is given. */
  public static final class Echo implements Scenario {
    @Override
    public void define(Script script) {
      script.tool("echo").answer(args -> String.valueOf(args.get("message")));
    }
  }

  @Test
  void anHttpAnswerOverTheLimitFailsItsCallAndTheSessionGoesOn(SupervisorTestKit kit) {
    ScriptedServer server = kit.http("http", new Echo(), ScriptedServer.Era.SESSIONS);
    kit.option("http", "maxMessageBytes", LIMIT);
    SupervisorClient client = kit.client();

    JsonRpcError tooLarge = failure(client, "http");

    assertEquals(JsonRpcErrorCodes.UPSTREAM_MESSAGE_TOO_LARGE, tooLarge.code());
    assertTrue(
        tooLarge.message().contains("maxMessageBytes (" + LIMIT + " bytes)"), tooLarge.message());
    assertEquals("small", echo(client, "http", "small"));
    assertEquals(1, server.requests("initialize").size(), "the session goes on");
  }

  @Test
  void aStdioLineOverTheLimitEndsTheConnectionAndTheServerIsRestarted(SupervisorTestKit kit) {
    ScriptedServer server = kit.stdio("stdio", Echo.class);
    kit.option("stdio", "maxMessageBytes", LIMIT);
    SupervisorClient client = kit.client();
    assertEquals("small", echo(client, "stdio", "small"));

    JsonRpcError tooLarge = failure(client, "stdio");

    assertEquals(JsonRpcErrorCodes.UPSTREAM_SESSION_LOST, tooLarge.code(), tooLarge.toString());
    assertTrue(tooLarge.data().path("retryable").asBoolean(false), tooLarge.toString());
    // why the line was refused (the limit) is logged under the error's ref, not told to the client
    assertTrue(tooLarge.data().has("ref"), String.valueOf(tooLarge.data()));
    assertEquals("small", echo(client, "stdio", "small"));
    assertEquals(2, server.starts().size(), "a new server process");
    assertNotEquals(server.starts().get(0), server.starts().get(1));
  }

  private static String echo(SupervisorClient client, String server, String message) {
    return client
        .callTool("run-1", server, "echo", Map.of("message", message))
        .toCompletableFuture()
        .join()
        .text();
  }

  private static JsonRpcError failure(SupervisorClient client, String server) {
    CompletionException failure =
        assertThrows(CompletionException.class, () -> echo(client, server, BIG));
    return assertInstanceOf(SupervisorException.class, failure.getCause()).error();
  }
}
