package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.FakeConnector.FakeConnection;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import dev.mcpsupervisor.upstream.UpstreamConnection;
import dev.mcpsupervisor.upstream.UpstreamConnector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A session closed while its connection is still opening (a context-isolation release before ready,
 * shutdown, an opening circuit) must close that connection once it opens: nothing it started may
 * outlive it.
 */
class CloseWhileConnectingTest {

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void aConnectionThatOpensAfterTheSessionClosedIsClosedAtOnce() {
    try (TestSupervisor test =
        TestSupervisor.start(TestSupervisor.server("alpha", Isolation.CONTEXT, 4, 1000))) {
      CompletableFuture<Void> gate = new CompletableFuture<>();
      test.connector.connectGate = gate;
      CompletionStage<?> acquire = test.supervisor.acquire("run-1", "alpha");
      FakeConnection connection =
          test.connector.nextConnection(); // the connect is under way, not complete
      await(test.supervisor.release("run-1", "alpha"));
      assertTrue(
          TestSupervisor.awaitFailure(acquire) instanceof SupervisorException,
          "the acquire is answered");

      gate.complete(null); // the connection opens after the session was told to close
      test.awaitAssert(() -> assertTrue(connection.closed.get(), "the late connection was closed"));
      test.awaitAssert(() -> assertEquals(List.of(), test.snapshot().keys()));
      assertEquals(1, test.connector.connects.get());
    }
  }

  @Test
  void shutdownWhileConnectingClosesTheConnectionWhenItOpens() {
    FakeConnection connection;
    CompletableFuture<Void> gate = new CompletableFuture<>();
    TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"));
    try {
      test.connector.connectGate = gate;
      test.supervisor.acquire("run-1", "alpha");
      connection = test.connector.nextConnection();
      CompletionStage<Void> shutdown = test.supervisor.shutdown();
      gate.complete(null); // opens while the supervisor shuts down
      await(shutdown);
    } finally {
      test.close();
    }
    assertTrue(connection.closed.get(), "shutdown waited for the opening connection and closed it");
  }

  @Test
  void aStdioServerSpawnedForASessionClosedBeforeReadyIsEnded() throws Exception {
    UpstreamConnector real = DefaultConnectors.create();
    LinkedBlockingQueue<UpstreamConnection> spawned = new LinkedBlockingQueue<>();
    CompletableFuture<Void> gate = new CompletableFuture<>();
    // the real process starts at once; the session hears of it only when the test opens the gate
    UpstreamConnector slowToReport =
        (spec, listener) ->
            real.connect(spec, listener)
                .thenCompose(
                    connection -> {
                      spawned.add(connection);
                      return gate.thenApply(opened -> connection);
                    });
    List<String> command = new ArrayList<>(FixtureProcess.stdioCommand());
    ServerConfig server =
        ServerConfig.builder(
                "fixture",
                new ServerSpec.Stdio(
                    command.get(0), command.subList(1, command.size()), Map.of(), null))
            .isolation(Isolation.CONTEXT)
            .maxSessions(4)
            .maxInflightPerSession(1000)
            .requestTimeout(Duration.ofSeconds(30))
            .idleTimeout(Duration.ofMinutes(5))
            .build();
    long pid = -1;
    try (SessionSupervisor supervisor =
        SessionSupervisor.start(
            RealFixture.config(server), slowToReport, SupervisorObserver.NONE)) {
      supervisor.acquire("run-1", "fixture");
      UpstreamConnection connection = spawned.poll(30, TimeUnit.SECONDS);
      assertTrue(connection != null, "the fixture process was started");
      pid = connection.pid().orElseThrow();
      assertTrue(ChildProcesses.isAlive(pid));
      await(
          supervisor.release(
              "run-1", "fixture")); // closes the session before its connection is reported

      gate.complete(null);
      Optional<ProcessHandle> process = ProcessHandle.of(pid);
      if (process.isPresent()) {
        process.get().onExit().get(10, TimeUnit.SECONDS);
      }
      assertFalse(
          ChildProcesses.isAlive(pid),
          "the process of the closed session is gone (OS process table)");
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError(
          "process " + pid + " is still alive 10 s after its session closed", e);
    } finally {
      ProcessHandle.of(pid)
          .ifPresent(ProcessHandle::destroyForcibly); // never leave it behind, even on failure
    }
  }
}
