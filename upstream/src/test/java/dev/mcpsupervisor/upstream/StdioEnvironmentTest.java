package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * What a stdio server gets of the gateway's environment. The test JVM has {@value #CANARY} set
 * (surefire's environmentVariables in this module's pom), as a gateway has the variables behind its
 * ${VAR} substitutions.
 */
class StdioEnvironmentTest {

  private static final String CANARY = "MCP_SUPERVISOR_TEST_CANARY";

  private final StdioConnector connector = new StdioConnector(Duration.ofMillis(500));

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void aServerGetsTheAllowListAndItsOwnEnvButNotTheRest() {
    assertEquals("canary-value", System.getenv(CANARY), "the pom sets the canary for the test");
    String environment = environmentOf(false, Map.of("OWN", "own-value"));

    assertFalse(environment.contains(CANARY), environment);
    assertFalse(environment.contains("canary-value"), environment);
    assertTrue(environment.contains("OWN=own-value\n"), environment);
    assertTrue(environment.contains("PATH=" + System.getenv("PATH") + "\n"), environment);
  }

  @Test
  void inheritEnvPassesEverything() {
    String environment = environmentOf(true, Map.of());

    assertTrue(environment.contains(CANARY + "=canary-value\n"), environment);
  }

  private String environmentOf(boolean inheritEnv, Map<String, String> env) {
    List<String> command = FixtureProcess.stdioCommand();
    ServerSpec.Stdio spec =
        new ServerSpec.Stdio(
            command.get(0),
            command.subList(1, command.size()),
            env,
            null,
            UpstreamProtocol.SESSION,
            inheritEnv);
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection = Rpc.await(connector.connect(spec, listener));
    try {
      Rpc.handshake(connection, listener);
      Rpc.send(connection, Rpc.callTool(7, FixtureTools.ENV, null));
      return Rpc.text(
          (JsonRpcResponse)
              listener
                  .await(
                      received ->
                          received.message() instanceof JsonRpcResponse response
                              && Rpc.sameId(response.id(), Rpc.id(7)))
                  .message());
    } finally {
      Rpc.await(connection.close());
    }
  }
}
