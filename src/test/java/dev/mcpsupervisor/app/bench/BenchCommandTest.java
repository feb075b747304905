package dev.mcpsupervisor.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchCommandTest {

  private static BenchPlan plan(String... args) {
    CommandLine commandLine = new CommandLine(new BenchCommand());
    commandLine.parseArgs(args);
    return commandLine.<BenchCommand>getCommand().plan();
  }

  private static String usageError(String... args) {
    return assertThrows(CommandLine.ParameterException.class, () -> plan(args)).getMessage();
  }

  @Test
  void defaults() {
    BenchPlan plan = plan("http://127.0.0.1:1/mcp");
    assertEquals(URI.create("http://127.0.0.1:1/mcp"), plan.target());
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
