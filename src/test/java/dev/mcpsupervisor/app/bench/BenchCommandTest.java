package dev.mcpsupervisor.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.app.cli.UsageException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class BenchCommandTest {

  private static BenchPlan plan(String... args) {
    return BenchCommand.plan(BenchCommand.SYNTAX.parse(args));
  }

  private static String usageError(String... args) {
    return assertThrows(UsageException.class, () -> plan(args)).getMessage();
  }

  @Test
  void defaults() {
    BenchPlan plan = plan("http://127.0.0.1:1/mcp");
    assertEquals(List.of(URI.create("http://127.0.0.1:1/mcp")), plan.targets());
    assertEquals(List.of(Era.SESSION, Era.STATELESS), plan.eras());
    assertEquals(10, plan.sessions());
    assertEquals(100, plan.callsPerSession());
    assertEquals(1, plan.inFlight());
    assertEquals("echo", plan.tool());
    assertEquals("message", plan.argument());
    assertEquals(Duration.ofSeconds(30), plan.timeout());
    assertEquals(OptionalLong.empty(), plan.gatewayPid());
  }

  @Test
  void moreUrlsSpreadTheRequestsOverEveryNodeInTurn() {
    BenchPlan plan =
        plan("http://127.0.0.1:1/mcp", "--urls", "http://127.0.0.1:2/mcp,http://127.0.0.1:3/mcp");
    assertEquals(
        List.of(
            URI.create("http://127.0.0.1:1/mcp"),
            URI.create("http://127.0.0.1:2/mcp"),
            URI.create("http://127.0.0.1:3/mcp")),
        plan.targets());
    BenchRequests requests = new BenchRequests(plan, Era.SESSION);
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      ports.add(requests.toolCall("s", i, "p").uri().getPort());
    }
    assertEquals(List.of(1, 2, 3, 1, 2, 3), ports, "a session's requests go round the nodes");
    assertTrue(
        usageError("http://127.0.0.1:1/mcp", "--urls", "ftp://x/mcp").contains("http or https"));
  }

  @Test
  void everyFlag() {
    BenchPlan plan =
        plan(
            "https://h/servers/x/mcp",
            "-n",
            "3",
            "--calls",
            "5",
            "-k",
            "2",
            "--era",
            "Stateless",
            "--tool",
            "say",
            "--argument",
            "text",
            "--timeout",
            "4",
            "--pid",
            "77",
            "--pid-children");
    assertEquals(List.of(Era.STATELESS), plan.eras());
    assertEquals(15, plan.totalCalls());
    assertEquals(2, plan.inFlight());
    assertEquals("say", plan.tool());
    assertEquals("text", plan.argument());
    assertEquals(Duration.ofSeconds(4), plan.timeout());
    assertEquals(OptionalLong.of(77), plan.gatewayPid());
    assertTrue(plan.withChildren());
    assertEquals(List.of(Era.SESSION), plan("http://h/mcp", "--era", "2025").eras());
  }

  @Test
  void badFlagsAreUsageErrors() {
    assertEquals("--sessions must be at least 1, got 0", usageError("http://h/mcp", "-n", "0"));
    assertEquals("--in-flight must be at least 1, got -1", usageError("http://h/mcp", "-k", "-1"));
    assertEquals(
        "--era must be session, stateless or both, got 2024",
        usageError("http://h/mcp", "--era", "2024"));
    assertEquals("URL must be an http or https URL, got ftp://h/mcp", usageError("ftp://h/mcp"));
    assertEquals("--pid-children needs --pid", usageError("http://h/mcp", "--pid-children"));
    assertTrue(usageError("http://h/mcp", "-n", "100000", "-m", "100000").contains("at most"));
  }
}
