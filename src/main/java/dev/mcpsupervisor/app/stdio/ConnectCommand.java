package dev.mcpsupervisor.app.stdio;

import dev.mcpsupervisor.app.runtime.TerminationSignals;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code mcp-supervisor connect URL [--header "Name: value"]...}: a stdio MCP server for a client
 * that only starts servers as processes, forwarding to a remote Streamable HTTP endpoint (a shared
 * mcp-supervisor gateway, or any server) through a {@link StdioBridge} on an {@link HttpEndpoint}.
 */
@Command(
    name = "connect",
    mixinStandardHelpOptions = true,
    description =
        "Serves MCP over stdin/stdout, forwarding every message to a Streamable HTTP MCP endpoint (both"
            + " eras; reconnects, re-initializes a session the endpoint lost, resumes broken"
            + " streams). Exits when stdin closes, on SIGTERM, or when its parent process dies.")
public final class ConnectCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(ConnectCommand.class);

  /** How long a request waits for an endpoint that refuses connections (it is restarting). */
  static final Duration RECONNECT_FOR = Duration.ofSeconds(30);

  @Parameters(
      index = "0",
      paramLabel = "URL",
      description = "the endpoint, e.g. https://mcp.example/mcp")
  private URI url;

  @Option(
      names = "--header",
      paramLabel = "\"NAME: VALUE\"",
      description =
          "a header sent with every request, e.g. \"Authorization: Bearer …\" (repeatable)")
  private List<String> headerLines = List.of();

  @Spec private picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line : headerLines) {
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "--header must be \"Name: value\", got \"" + line + "\"");
      }
      headers.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
    }
    if (!"http".equals(url.getScheme()) && !"https".equals(url.getScheme())) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "URL must be http or https, got " + url);
    }
    StdioBridge bridge = new StdioBridge(new HttpEndpoint(url), headers, System.out, RECONNECT_FOR);
    String why = bridge.serve(System.in, TerminationSignals.install());
    log.info("connect to {} ends: {}", url, why);
    return 0;
  }
}
