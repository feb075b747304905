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
   * The shared path's 5, and the call's end told to the router, which keeps the caller's identity
   * context while its calls are in flight and for the idle timeout after the last one. 12 before
   * (an ask and a Leave of CallerContexts, and a tools/list round trip of its own for the Mcp-Param
   * check, the list cache being off for such a server).
   */
  static final int STATELESS_IN_CONTEXT_BOUND = 6;

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
        "KeptCallEnded"); // told as the call's own actor stops, after its answer
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
