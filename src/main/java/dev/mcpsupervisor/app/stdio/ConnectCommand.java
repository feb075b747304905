package dev.mcpsupervisor.app.stdio;

import dev.mcpsupervisor.app.cli.Arguments;
import dev.mcpsupervisor.app.cli.Command;
import dev.mcpsupervisor.app.cli.Flag;
import dev.mcpsupervisor.app.cli.Syntax;
import dev.mcpsupervisor.app.cli.UsageException;
import dev.mcpsupervisor.app.runtime.TerminationSignals;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code mcp-supervisor connect URL [--header "Name: value"]...}: a stdio MCP server for a client
 * that only starts servers as processes, forwarding to a remote Streamable HTTP endpoint (a shared
 * mcp-supervisor gateway, or any server) through a {@link StdioBridge} on an {@link HttpEndpoint}.
 */
public final class ConnectCommand implements Command {

  private static final Logger log = LoggerFactory.getLogger(ConnectCommand.class);

  /** How long a request waits for an endpoint that refuses connections (it is restarting). */
  static final Duration RECONNECT_FOR = Duration.ofSeconds(30);

  private static final Syntax SYNTAX =
      new Syntax(
          "connect",
          "Serves MCP over stdin/stdout, forwarding every message to a Streamable HTTP MCP endpoint"
              + " (both eras; reconnects, re-initializes a session the endpoint lost, resumes"
              + " broken streams). Exits when stdin closes, on SIGTERM, or when its parent process"
              + " dies.",
          List.of(new Syntax.Parameter("URL", "the endpoint, e.g. https://mcp.example/mcp")),
          List.of(
              Flag.option(
                      "--header",
                      "\"NAME: VALUE\"",
                      "a header sent with every request, e.g. \"Authorization: Bearer …\""
                          + " (repeatable)")
                  .asRepeatable()));

  @Override
  public Syntax syntax() {
    return SYNTAX;
  }

  @Override
  public int run(Arguments arguments, PrintWriter out, PrintWriter err) {
    URI url = Arguments.uri("URL", arguments.parameter("URL"));
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line : arguments.texts("--header")) {
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new UsageException("--header must be \"Name: value\", got \"" + line + "\"");
      }
      headers.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
    }
    if (!"http".equals(url.getScheme()) && !"https".equals(url.getScheme())) {
      throw new UsageException("URL must be http or https, got " + url);
    }
    // stdout carries the protocol: out (the command line's text) is not it
    StdioBridge bridge = new StdioBridge(new HttpEndpoint(url), headers, System.out, RECONNECT_FOR);
    String why = bridge.serve(System.in, TerminationSignals.install());
    log.info("connect to {} ends: {}", url, why);
    return 0;
  }
}
