package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.RecordingListener.Received;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StdioConnectorTest {

  private final StdioConnector connector = new StdioConnector(Duration.ofMillis(500));

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  private static ServerSpec.Stdio spec(List<String> commandLine) {
    return new ServerSpec.Stdio(
        commandLine.get(0), commandLine.subList(1, commandLine.size()), Map.of(), null);
  }

  private static ServerSpec.Stdio shell(String script) {
    return new ServerSpec.Stdio("sh", List.of("-c", script), Map.of(), null);
  }

  private UpstreamConnection connect(ServerSpec spec, RecordingListener listener) {
    return Rpc.await(connector.connect(spec, listener));
  }

  @Test
  void fixtureAnswersInitializeAndEchoOverStdio() {
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection = connect(spec(FixtureProcess.stdioCommand()), listener);
    try {
      JsonRpcResponse initialized = Rpc.handshake(connection, listener);
      assertEquals(
          FixtureTools.SERVER_NAME, initialized.result().path("serverInfo").path("name").asText());

      Rpc.send(connection, Rpc.echo(1, "hello over stdio"));
      Received answer = listener.await(r -> r.message() instanceof JsonRpcResponse);
      assertEquals("hello over stdio", Rpc.text((JsonRpcResponse) answer.message()));
      assertNull(answer.relatedRequestId(), "stdio cannot tell which request a message belongs to");
      assertTrue(connection.pid().isPresent());
    } finally {
      Rpc.await(connection.close());
    }
    assertFalse(ChildProcesses.isAlive(connection.pid().getAsLong()));
    listener.assertClosedOnceAs(ConnectionClosed.Kind.CLOSED_BY_US);
  }

  @Test
  void crashedProcessIsReportedAtOnceWithItsExitCode() {
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection = connect(spec(FixtureProcess.stdioCommand()), listener);
    try {
      Rpc.handshake(connection, listener);
      long sentAt = System.nanoTime();
      Rpc.send(connection, Rpc.callTool(1, FixtureTools.CRASH, null));

      ConnectionClosed closed = listener.awaitClosed();
      long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(listener.closedAtNanos - sentAt);
      assertEquals(ConnectionClosed.Kind.PROCESS_EXITED, closed.kind());
      assertTrue(
          closed.detail().startsWith("exit code " + FixtureTools.CRASH_EXIT_CODE), closed.detail());
      // seen from the process's exit, not from a timeout: a request deadline is 30 s, a ping
      // interval 30 s; the margin is for a loaded 2-core machine (a typical run sees it within ~100
      // ms)
      assertTrue(elapsedMillis < 5_000, "death seen after " + elapsedMillis + " ms");

      ExecutionException sendAfterExit =
          assertThrows(
              ExecutionException.class,
              () -> connection.send(Rpc.echo(2, "too late")).toCompletableFuture().get());
      assertInstanceOf(IOException.class, sendAfterExit.getCause());
    } finally {
      Rpc.await(connection.close());
    }
    assertEquals(1, listener.closeCount.get(), "close after the exit reports nothing more");
  }

  @Test
  void exitDetailCarriesTheLastStderrLines() {
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection =
        connect(shell("echo 'starting up' >&2; echo 'fatal: no API key' >&2; exit 7"), listener);
    ConnectionClosed closed = listener.awaitClosed();
    Rpc.await(connection.close());

    assertEquals(ConnectionClosed.Kind.PROCESS_EXITED, closed.kind());
    assertEquals("exit code 7; last stderr: starting up | fatal: no API key", closed.detail());
  }

  @Test
  void stderrKeepsOnlyTheLastTwentyLines() {
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection =
        connect(
            shell("i=1; while [ $i -le 100 ]; do echo \"line $i\" >&2; i=$((i+1)); done; exit 1"),
            listener);
    ConnectionClosed closed = listener.awaitClosed();
    Rpc.await(connection.close());

    String lastStderr =
        closed
            .detail()
            .substring(closed.detail().indexOf("last stderr: ") + "last stderr: ".length());
    String[] lines = lastStderr.split(" \\| ");
    assertEquals(StderrTail.KEPT_LINES, lines.length);
    assertEquals("line 81", lines[0]);
    assertEquals("line 100", lines[lines.length - 1]);
  }

  @Test
  void closeEndsTheProcessAndItsDescendants() {
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection = connect(shell("sleep 300 & sleep 300"), listener);
    long parent = connection.pid().getAsLong();
    List<ProcessHandle> children = ChildProcesses.awaitDescendants(parent, 2);

    Rpc.await(connection.close());

    assertFalse(ChildProcesses.isAlive(parent), "the parent survived close()");
    for (ProcessHandle child : children) {
      assertFalse(
          ChildProcesses.isAlive(child.pid()), "child " + child.pid() + " survived close()");
    }
    listener.assertClosedOnceAs(ConnectionClosed.Kind.CLOSED_BY_US);
  }

  @Test
  void processesIgnoringTermAreKilledAfterTheGracePeriod() {
    RecordingListener listener = new RecordingListener();
    // an ignored signal stays ignored across fork and exec: the sleeping child ignores TERM too
    UpstreamConnection connection = connect(shell("trap '' TERM; sleep 300 & sleep 300"), listener);
    long parent = connection.pid().getAsLong();
    List<ProcessHandle> children = ChildProcesses.awaitDescendants(parent, 2);

    long start = System.nanoTime();
    Rpc.await(connection.close());
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertFalse(ChildProcesses.isAlive(parent));
    children.forEach(child -> assertFalse(ChildProcesses.isAlive(child.pid())));
    assertTrue(tookMillis >= 400, "KILL came before the grace period ended: " + tookMillis + " ms");
    assertTrue(tookMillis < 5_000, "close took " + tookMillis + " ms");
  }

  @Test
  void closeIsIdempotentAndSendAfterCloseFails() {
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection = connect(shell("cat"), listener);
    CompletableFuture<Void> first = connection.close().toCompletableFuture();
    CompletableFuture<Void> second = connection.close().toCompletableFuture();
    Rpc.await(first);
    Rpc.await(second);

    listener.assertClosedOnceAs(ConnectionClosed.Kind.CLOSED_BY_US);
    ExecutionException failure =
        assertThrows(
            ExecutionException.class,
            () -> connection.send(Rpc.echo(1, "x")).toCompletableFuture().get());
    assertInstanceOf(IOException.class, failure.getCause());
  }

  @Test
  void missingCommandFailsTheConnectNamingTheCommand() {
    RecordingListener listener = new RecordingListener();
    ServerSpec.Stdio missing =
        new ServerSpec.Stdio("mcp-server-that-does-not-exist", List.of(), Map.of(), null);

    ExecutionException failure =
        assertThrows(
            ExecutionException.class,
            () -> connector.connect(missing, listener).toCompletableFuture().get());

    assertInstanceOf(IOException.class, failure.getCause());
    assertEquals(
        "command not found: \"mcp-server-that-does-not-exist\" (not an executable file, nor on the PATH)",
        failure.getCause().getMessage());
    assertEquals(
        0, listener.closeCount.get(), "a connection that never opened is not reported closed");
  }

  @Test
  void missingWorkingDirectoryFailsTheConnect(@TempDir Path dir) {
    ServerSpec.Stdio spec =
        new ServerSpec.Stdio("sh", List.of(), Map.of(), dir.resolve("absent").toString());

    ExecutionException failure =
        assertThrows(
            ExecutionException.class,
            () -> connector.connect(spec, new RecordingListener()).toCompletableFuture().get());

    assertTrue(
        failure.getCause().getMessage().contains("working directory"),
        failure.getCause().getMessage());
  }

  @Test
  void aProcessThatClosesItsStdoutButRunsOnIsEndedAsATransportFailure() {
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection = connect(shell("exec 1>&-; exec sleep 300"), listener);
    long pid = connection.pid().getAsLong();
    try {
      ConnectionClosed closed = listener.awaitClosed();
      assertEquals(ConnectionClosed.Kind.TRANSPORT_ERROR, closed.kind(), closed.detail());
      assertTrue(closed.detail().contains("stdout"), closed.detail());
      Rpc.await(connection.close());
      assertFalse(ChildProcesses.isAlive(pid), "the process that stopped answering is ended");
    } finally {
      Rpc.await(connection.close());
    }
  }

  @Test
  void stdoutLinesThatAreNotJsonRpcAreSkipped() {
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection =
        connect(
            shell(
                "echo 'Starting server...'; echo '{\"not\":\"json-rpc\"}'; echo '[1,'; echo; cat"),
            listener);
    try {
      Rpc.send(connection, Rpc.echo(42, "after the junk"));
      Received echoed = listener.await(r -> true);
      JsonRpcRequest request = assertInstanceOf(JsonRpcRequest.class, echoed.message());
      assertEquals(42, request.id().longValue());
      assertTrue(listener.passedOver.isEmpty());
      assertFalse(listener.closed.isDone(), "junk on stdout must not end the connection");
    } finally {
      Rpc.await(connection.close());
    }
  }

  @Test
  void configuredEnvironmentAndWorkingDirectoryReachTheProcess(@TempDir Path dir)
      throws IOException {
    Path cwd = Files.createDirectory(dir.resolve("server-home")).toRealPath();
    ServerSpec.Stdio spec =
        new ServerSpec.Stdio(
            "sh",
            List.of(
                "-c",
                "printf '{\"jsonrpc\":\"2.0\",\"method\":\"env\",\"params\":{\"key\":\"%s\",\"cwd\":\"%s\","
                    + "\"path\":\"%s\"}}\\n' \"$API_KEY\" \"$(pwd)\" \"$PATH\"; cat"),
            Map.of("API_KEY", "sk-test-123"),
            cwd.toString());
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection = connect(spec, listener);
    try {
      JsonNode params = ((JsonRpcNotification) listener.await(r -> true).message()).params();
      assertEquals("sk-test-123", params.path("key").asText());
      assertEquals(cwd.toString(), params.path("cwd").asText());
      assertEquals(
          System.getenv("PATH"), params.path("path").asText(), "the environment is inherited");
    } finally {
      Rpc.await(connection.close());
    }
  }

  @Test
  void concurrentSendsArriveAsWholeLines() throws Exception {
    RecordingListener listener = new RecordingListener();
    UpstreamConnection connection = connect(shell("cat"), listener);
    int senders = 200;
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<CompletableFuture<Void>> sends = new ArrayList<>();
      for (int i = 0; i < senders; i++) {
        long id = i;
        // big enough that unserialized writes would interleave inside the pipe
        String payload = ("payload-" + id + "-").repeat(500);
        sends.add(
            CompletableFuture.supplyAsync(
                    () -> {
                      awaitLatch(start);
                      return connection.send(Rpc.echo(id, payload)).toCompletableFuture();
                    },
                    pool)
                .thenCompose(sent -> sent));
      }
      start.countDown();
      CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

      Set<Long> seen = new HashSet<>();
      for (int i = 0; i < senders; i++) {
        JsonRpcRequest echoed = (JsonRpcRequest) listener.await(r -> true).message();
        long id = echoed.id().longValue();
        assertEquals(
            ("payload-" + id + "-").repeat(500),
            echoed.params().path("arguments").path("message").asText());
        seen.add(id);
      }
      assertEquals(senders, seen.size());
      assertEquals(
          1, listener.maxConcurrentCalls.get(), "the listener is never called concurrently");
    } finally {
      pool.shutdownNow();
      Rpc.await(connection.close());
    }
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
