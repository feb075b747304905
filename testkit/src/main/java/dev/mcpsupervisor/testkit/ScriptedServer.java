package dev.mcpsupervisor.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfigBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A scripted MCP server for a test: over stdio, the command line of a child process the supervisor
 * spawns, kills and restarts ({@link #stdio}); over Streamable HTTP on a free loopback port, a
 * server in this JVM ({@link #http}) or a child process of it that is started again on the same
 * port when it exits ({@link #httpProcess}). Either way it behaves as its {@link Scenario} says and
 * records what it received ({@link #received}, {@link #requests}) and what the client answered its
 * requests with ({@link #clientAnswers}), across restarts. Close it after the test (the {@link
 * SupervisorTestKit} does).
 */
public final class ScriptedServer implements AutoCloseable {

  /** Which MCP era the server speaks, and so which one the supervisor is configured to use. */
  public enum Era {
    /** 2025-11-25 and earlier: initialize, one session per connection. */
    SESSIONS("2025"),
    /** MCP 2026-07-28: stateless, {@code _meta} on every request, no initialize. */
    STATELESS("2026-07-28"),
    /** Both (HTTP only): the supervisor finds out, as it does for a server in production. */
    BOTH("auto");

    private final String protocol;

    Era(String protocol) {
      this.protocol = protocol;
    }

    /** The server's {@code protocol} in the supervisor's configuration. */
    public String protocol() {
      return protocol;
    }
  }

  private static final Duration POLL = Duration.ofMillis(20);

  private final Era era;
  private final Journal journal;
  private final List<String> command;
  private final HttpWire http;

  private ScriptedServer(Era era, Journal journal, List<String> command, HttpWire http) {
    this.era = era;
    this.journal = journal;
    this.command = command;
    this.http = http;
  }

  /** A session-era server as a child process over stdio; nothing runs until a client starts it. */
  public static ScriptedServer stdio(Class<? extends Scenario> scenario) {
    return stdio(scenario, Era.SESSIONS);
  }

  /**
   * A server of {@code era} ({@link Era#SESSIONS} or {@link Era#STATELESS}) as a child process over
   * stdio. The scenario class is loaded in the child from this JVM's classpath.
   */
  public static ScriptedServer stdio(Class<? extends Scenario> scenario, Era era) {
    if (era == Era.BOTH) {
      throw new IllegalArgumentException("a stdio server speaks one era: SESSIONS or STATELESS");
    }
    Journal journal = Journal.create();
    return new ScriptedServer(
        era,
        journal,
        FixtureProcess.command(
            ScriptedServerMain.class,
            scenario.getName(),
            journal.file().toString(),
            era == Era.SESSIONS ? ScriptedServerMain.SESSIONS : ScriptedServerMain.STATELESS),
        null);
  }

  /** A server of both eras over Streamable HTTP in this JVM, started; the supervisor finds out. */
  public static ScriptedServer http(Scenario scenario) {
    return http(scenario, Era.BOTH);
  }

  /**
   * A server over Streamable HTTP in this JVM, started on a free loopback port. It serves both eras
   * on its endpoint; {@code era} is the one the supervisor is configured to speak to it.
   */
  public static ScriptedServer http(Scenario scenario, Era era) {
    Journal journal = Journal.create();
    return new ScriptedServer(era, journal, null, HttpScriptedServer.inThisJvm(scenario, journal));
  }

  /** A server of both eras over Streamable HTTP as a child process; the supervisor finds out. */
  public static ScriptedServer httpProcess(Class<? extends Scenario> scenario) {
    return httpProcess(scenario, Era.BOTH);
  }

  /**
   * A server over Streamable HTTP as a child process of this JVM, started and listening on a free
   * loopback port (the one it says it listens on); {@code era} is the one the supervisor is
   * configured to speak to it. When it exits ({@link ToolScript#exit}, or killed by its pid from
   * {@link #starts}), another process is started on the same port, as a service manager would: its
   * clients are refused until it listens, a JVM start later (a second or more; see {@link
   * SupervisorTestKit#RECONNECT_UNTIL_BACK}). {@link #close} ends it; it also ends with this JVM.
   */
  public static ScriptedServer httpProcess(Class<? extends Scenario> scenario, Era era) {
    Journal journal = Journal.create();
    return new ScriptedServer(era, journal, null, HttpScriptedProcess.start(scenario, journal));
  }

  public Era era() {
    return era;
  }

  /** The child's command line (stdio); empty for a server over HTTP (even in a child process). */
  public List<String> command() {
    return command == null ? List.of() : command;
  }

  /** The MCP endpoint, {@code http://127.0.0.1:<port>/mcp} (HTTP); null for a stdio server. */
  public String url() {
    return http == null ? null : http.url();
  }

  /** Adds this server to a configuration as {@code name}, with its transport and era. */
  public SupervisorConfigBuilder addTo(SupervisorConfigBuilder config, String name) {
    if (http != null) {
      config.http(name, http.url());
    } else {
      config.stdio(name, command.get(0), command.subList(1, command.size()).toArray(String[]::new));
    }
    return config.option(name, "protocol", era.protocol());
  }

  /**
   * Writes an {@code mcpServers} file with this server alone as {@code name} and returns its
   * location ({@code file:/...}): the scripted server in place of the configured ones, for an
   * application that reads its servers from a file (Spring AI's {@code
   * mcp-supervisor.servers-configuration}). The file is deleted when the JVM exits.
   */
  public String serversFile(String name) {
    try {
      Path file = Files.createTempFile("mcp-servers-", ".json");
      file.toFile().deleteOnExit();
      Files.writeString(file, addTo(SupervisorConfig.builder(), name).text());
      return file.toUri().toString();
    } catch (IOException e) {
      throw new UncheckedIOException("could not write an mcpServers file", e);
    }
  }

  /**
   * Every message clients sent it, in order, across restarts (requests with their {@code _meta}).
   */
  public List<JsonNode> received() {
    return journal.entries("received").stream().map(entry -> entry.path("message")).toList();
  }

  /** The requests of {@code method} it received, in order. */
  public List<JsonNode> requests(String method) {
    return received().stream()
        .filter(message -> message.has("id") && method.equals(message.path("method").asText()))
        .toList();
  }

  /**
   * What clients answered its server requests with (sampling, elicitation, roots), in order: each
   * {@code {"method": ..., "answer": {...}}}.
   */
  public List<JsonNode> clientAnswers() {
    List<JsonNode> answers = new ArrayList<>();
    for (JsonNode entry : journal.entries("clientAnswer")) {
      ObjectNode answer = entry.deepCopy();
      answer.remove("kind");
      answers.add(answer);
    }
    return answers;
  }

  /** The pid of each start, in order (this JVM's for a server over HTTP in this JVM). */
  public List<Long> starts() {
    return journal.entries("start").stream().map(entry -> entry.path("pid").asLong()).toList();
  }

  /**
   * Waits (at most {@code within}) until the server has started {@code count} times in all: a
   * restart seen from the server's side, for a client that has no session to see it lost (a
   * stateless server over HTTP). A server over HTTP counts a start once it listens.
   */
  public void awaitStarts(int count, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (starts().size() < count) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "the server started " + starts().size() + " times, not " + count + ", in " + within);
      }
      // the journal is a file, written by other processes too: read it again shortly
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while awaiting a start", e);
      }
    }
  }

  /**
   * Stops a server over HTTP (a child process ends); forgets the journal. A stdio child is its
   * supervisor's to end.
   */
  @Override
  public void close() {
    if (http != null) {
      http.close();
    }
    journal.delete();
  }
}
