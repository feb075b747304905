package dev.mcpsupervisor.http;

import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link DeliveryCountTest}'s count for a 2026-07-28 caller with an identity calling an {@code
 * isolation: context} server, on a gateway of its own: that server's sessions send nothing into the
 * other counts' windows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeliveryCountInContextTest {

  /**
   * 12 today, counted: its request's visit to CallerContexts, which keeps the caller's identity
   * context between requests (Enter, an ask, and Leave: 2), and two upstream round trips of 5 each
   * (the call's own, and a second one of the request's that the shared-isolation path does not
   * make). Issue 35's open work: one round trip and no visit, 5.
   */
  static final int STATELESS_IN_CONTEXT_BOUND = 12;

  private final TestGateway gateway = DeliveryCountTest.countingGateway(contextIsolated("local"));

  @AfterAll
  void stop() {
    gateway.close();
  }

  @Test
  void aStatelessCallOfACallerToAContextIsolatedServer() {
    StatelessClient client = new StatelessClient(gateway, "{}");
    String[] headers =
        Stream.concat(
                Stream.of(StatelessClient.headers("tools/call", "local__echo")),
                Stream.of(DeliveryCountTest.AGENT_HEADER, "agent-1"))
            .toArray(String[]::new);
    DeliveryCountTest.assertCounted(
        "2026-07-28, isolation: context",
        () ->
            gateway.post(
                "/mcp",
                null,
                client.toolCall(1, "local__echo", "{\"message\":\"hi\"}", "", ""),
                headers),
        STATELESS_IN_CONTEXT_BOUND,
        "Leave"); // told once the request is answered
  }

  /** The fixture over stdio with {@code isolation: context}: a session of its own per caller. */
  private static ServerConfig contextIsolated(String name) {
    ServerSpec spec = TestGateway.stdioFixture(name).spec();
    return ServerConfig.builder(name, spec)
        .isolation(Isolation.CONTEXT)
        .maxSessions(4)
        .maxInflightPerSession(64)
        .requestTimeout(TestGateway.REQUEST_TIMEOUT)
        .idleTimeout(Duration.ofHours(1))
        .build();
  }
}
