package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A server's {@code maxMessageBytes} reaches its connections: an answer over it fails its call with
 * -32015 (HTTP; the session goes on) or ends the stdio connection, which is restarted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UpstreamLimitsFixtureTest {

  private static final int LIMIT = 64 * 1024;
  private static final String BIG = "x".repeat(2 * LIMIT);
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final FixtureProcess httpFixture = FixtureProcess.startHttp();
  private final SessionSupervisor supervisor =
      SessionSupervisor.start(
          RealFixture.config(
              limited(RealFixture.stdio("stdio", 41)),
              limited(RealFixture.streamableHttp("http", httpFixture.url()))));

  @AfterAll
  void stopEverything() {
    supervisor.close();
    httpFixture.close();
    ChildProcesses.assertNoneAlive();
  }

  private static ServerConfig limited(ServerConfig server) {
    return new ServerConfig(
        server.name(),
        server.spec(),
        server.isolation(),
        server.maxSessions(),
        server.maxInflightPerSession(),
        server.requestTimeout(),
        server.idleTimeout(),
        server.toolPrefix(),
        server.toolFilter(),
        new UpstreamLimits(
            LIMIT,
            server.upstreamLimits().httpTimeout(),
            server.upstreamLimits().sseRetryMin(),
            server.upstreamLimits().sseRetryMax()));
  }

  private JsonRpcResponse echo(String server, String message) {
    return RealFixture.await(
        RealFixture.call(supervisor, "run-1", server, FixtureTools.ECHO, "message", message), WAIT);
  }

  @Test
  void anHttpAnswerOverTheLimitFailsItsCallAndTheSessionGoesOn() {
    JsonRpcResponse tooLarge = echo("http", BIG);

    assertTrue(tooLarge.isError(), "an error answer");
    assertEquals(JsonRpcErrorCodes.UPSTREAM_MESSAGE_TOO_LARGE, tooLarge.error().code());
    assertTrue(
        tooLarge.error().message().contains("maxMessageBytes (" + LIMIT + " bytes)"),
        tooLarge.error().message());
    assertEquals("small", RealFixture.text(echo("http", "small")));
  }

  @Test
  void aStdioLineOverTheLimitEndsTheConnectionAndTheServerIsRestarted() {
    long pidBefore = RealFixture.pid(supervisor, "run-1", "stdio");

    JsonRpcResponse tooLarge = echo("stdio", BIG);

    assertTrue(tooLarge.isError(), "the call fails");
    assertTrue(RealFixture.isSessionLost(tooLarge), tooLarge.error().toString());
    // why the line was refused (the limit) is logged under the error's ref, not told to the client
    assertTrue(
        String.valueOf(tooLarge.error().data()).contains("\"ref\""),
        String.valueOf(tooLarge.error().data()));
    assertEquals("small", RealFixture.text(echo("stdio", "small")));
    assertTrue(RealFixture.pid(supervisor, "run-1", "stdio") != pidBefore, "a new server process");
  }
}
