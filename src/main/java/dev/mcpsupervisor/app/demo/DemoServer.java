package dev.mcpsupervisor.app.demo;

import dev.mcpsupervisor.app.runtime.Versions;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiFunction;

/**
 * The demo MCP server the gateway serves when started without {@code --config}: a separate process
 * over stdio, run from the application's own jar ({@link DemoConfig}), so a machine with only a JDK
 * has something to talk to.
 *
 * <p>Tools: {@code echo {message}}, {@code add {a, b}}, {@code time {}} (now, ISO-8601 UTC), {@code
 * sleep {ms}}, {@code progress {steps}} (one progress notification per step when the call carries a
 * progress token). Stdout carries the protocol; everything else goes to stderr.
 */
public final class DemoServer {

  public static final String NAME = "mcp-supervisor-demo";

  /** The longest {@code sleep} accepted, so a typo cannot park a worker thread for hours. */
  public static final long MAX_SLEEP_MS = 300_000;

  static final int MAX_PROGRESS_STEPS = 1_000;

  private DemoServer() {}

  public static void main(String[] args) throws InterruptedException {
    PrintStream protocolOut = System.out;
    // stray prints (a library's banner, logback status) must never corrupt the protocol stream
    System.setOut(System.err);
    CountDownLatch stdinEnded = new CountDownLatch(1);
    InputStream protocolIn = new EndAwareInputStream(System.in, stdinEnded::countDown);
    McpSyncServer server =
        McpServer.sync(
                new SerialStdioTransportProvider(
                    new StdioServerTransportProvider(
                        McpJsonDefaults.getMapper(), protocolIn, protocolOut)))
            .serverInfo(NAME, Versions.application())
            .capabilities(ServerCapabilities.builder().tools(false).build())
            .tools(tools())
            .build();
    // the SDK's stdio threads are not daemons: leave once the client hangs up (the gateway closes
    // our stdin)
    stdinEnded.await();
    server.closeGracefully();
    System.exit(0);
  }

  static List<SyncToolSpecification> tools() {
    return List.of(
        tool(
            "echo",
            "Returns the message unchanged",
            schema(properties("message", property("string", "Text to return")), "message"),
            (exchange, request) -> text(stringArgument(request, "message"))),
        tool(
            "add",
            "Adds two numbers",
            schema(
                properties(
                    "a",
                    property("number", "First addend"),
                    "b",
                    property("number", "Second addend")),
                "a",
                "b"),
            (exchange, request) -> text(sum(request))),
        tool(
            "time",
            "Returns the current time in ISO-8601, UTC",
            schema(properties()),
            (exchange, request) -> text(Instant.now().toString())),
        tool(
            "sleep",
            "Waits ms milliseconds (at most " + MAX_SLEEP_MS + "), then answers",
            schema(properties("ms", property("integer", "Milliseconds to wait")), "ms"),
            DemoServer::sleep),
        tool(
            "progress",
            "Reports progress 1..steps when the call carries a progress token, then answers",
            schema(
                properties(
                    "steps",
                    property("integer", "Number of steps (at most " + MAX_PROGRESS_STEPS + ")")),
                "steps"),
            DemoServer::progress));
  }

  private static CallToolResult sleep(McpSyncServerExchange exchange, CallToolRequest request) {
    long ms = integerArgument(request, "ms", 0, MAX_SLEEP_MS);
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return error("interrupted");
    }
    return text("slept " + ms + " ms");
  }

  private static CallToolResult progress(McpSyncServerExchange exchange, CallToolRequest request) {
    long steps = integerArgument(request, "steps", 0, MAX_PROGRESS_STEPS);
    Object token = request.meta() == null ? null : request.meta().get("progressToken");
    if (token != null) {
      for (long step = 1; step <= steps; step++) {
        exchange.progressNotification(
            ProgressNotification.builder(token, step)
                .total((double) steps)
                .message("step " + step)
                .build());
      }
    }
    return text("done " + steps + " steps");
  }

  private static String sum(CallToolRequest request) {
    // decimal arithmetic on the JSON text: 0.1 + 0.2 is "0.3", 2 + 3 is "5"
    BigDecimal total =
        new BigDecimal(numberArgument(request, "a").toString())
            .add(new BigDecimal(numberArgument(request, "b").toString()));
    return total.signum() == 0 ? "0" : total.stripTrailingZeros().toPlainString();
  }

  private static SyncToolSpecification tool(
      String name,
      String description,
      Map<String, Object> inputSchema,
      BiFunction<McpSyncServerExchange, CallToolRequest, CallToolResult> handler) {
    Tool tool = Tool.builder(name, inputSchema).description(description).build();
    return SyncToolSpecification.builder().tool(tool).callHandler(asToolErrors(handler)).build();
  }

  /**
   * A bad argument is the caller's mistake: answer it as a tool error the model can read, not a
   * protocol error.
   */
  private static BiFunction<McpSyncServerExchange, CallToolRequest, CallToolResult> asToolErrors(
      BiFunction<McpSyncServerExchange, CallToolRequest, CallToolResult> handler) {
    return (exchange, request) -> {
      try {
        return handler.apply(exchange, request);
      } catch (IllegalArgumentException e) {
        return error(e.getMessage());
      }
    };
  }

  private static Map<String, Object> schema(Map<String, Object> properties, String... required) {
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("type", "object");
    schema.put("properties", properties);
    if (required.length > 0) {
      schema.put("required", List.of(required));
    }
    return schema;
  }

  /**
   * Properties in the order written (clients show them in schema order): name, property, name,
   * property, ...
   */
  private static Map<String, Object> properties(Object... namesAndProperties) {
    Map<String, Object> properties = new LinkedHashMap<>();
    for (int i = 0; i < namesAndProperties.length; i += 2) {
      properties.put((String) namesAndProperties[i], namesAndProperties[i + 1]);
    }
    return properties;
  }

  private static Map<String, Object> property(String type, String description) {
    return Map.of("type", type, "description", description);
  }

  private static Object argument(CallToolRequest request, String name) {
    Object value = request.arguments() == null ? null : request.arguments().get(name);
    if (value == null) {
      throw new IllegalArgumentException("missing argument '" + name + "'");
    }
    return value;
  }

  private static String stringArgument(CallToolRequest request, String name) {
    if (!(argument(request, name) instanceof String value)) {
      throw new IllegalArgumentException("argument '" + name + "' must be a string");
    }
    return value;
  }

  private static Number numberArgument(CallToolRequest request, String name) {
    if (!(argument(request, name) instanceof Number value)) {
      throw new IllegalArgumentException("argument '" + name + "' must be a number");
    }
    return value;
  }

  private static long integerArgument(CallToolRequest request, String name, long min, long max) {
    Number number = numberArgument(request, name);
    double value = number.doubleValue();
    if (value != Math.rint(value) || value < min || value > max) {
      throw new IllegalArgumentException(
          "argument '" + name + "' must be an integer from " + min + " to " + max);
    }
    return number.longValue();
  }

  private static CallToolResult text(String text) {
    return CallToolResult.builder()
        .content(List.of(TextContent.builder(text).build()))
        .isError(false)
        .build();
  }

  private static CallToolResult error(String text) {
    return CallToolResult.builder()
        .content(List.of(TextContent.builder(text).build()))
        .isError(true)
        .build();
  }

  /** Passes input through and runs a callback once it ends or breaks. */
  private static final class EndAwareInputStream extends FilterInputStream {

    private final Runnable onEnd;

    EndAwareInputStream(InputStream in, Runnable onEnd) {
      super(in);
      this.onEnd = onEnd;
    }

    @Override
    public int read() throws IOException {
      try {
        return signalAtEnd(super.read());
      } catch (IOException e) {
        onEnd.run();
        throw e;
      }
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      try {
        return signalAtEnd(super.read(buffer, offset, length));
      } catch (IOException e) {
        onEnd.run();
        throw e;
      }
    }

    private int signalAtEnd(int result) {
      if (result < 0) {
        onEnd.run();
      }
      return result;
    }
  }
}
