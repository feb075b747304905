package dev.mcpsupervisor.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.app.cli.Arguments;
import dev.mcpsupervisor.app.cli.Command;
import dev.mcpsupervisor.app.cli.Flag;
import dev.mcpsupervisor.app.cli.Syntax;
import java.io.PrintWriter;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;

/**
 * {@code mcp-supervisor bench-floor}: the floor of bench/compare.sh — a bare MCP echo on Pekko HTTP
 * in this jar's JVM, with no supervisor: initialize (a session id, never checked), notifications
 * (202), tools/list (one tool, echo) and tools/call echo answered in the request's turn, in either
 * era. What a call costs on this stack before any supervision; not a server to use.
 */
public final class FloorCommand extends AllDirectives implements Command {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final Syntax SYNTAX =
      new Syntax(
          "bench-floor",
          "Serves a bare MCP echo tool over Streamable HTTP on Pekko HTTP, no supervisor: the floor"
              + " that bench/compare.sh measures the gateway against.",
          List.of(),
          List.of(
              Flag.option("--host", "H", "the address to listen on").withDefault("127.0.0.1"),
              Flag.option("--port", "N", "the port to listen on").asRequired()));

  @Override
  public Syntax syntax() {
    return SYNTAX;
  }

  @Override
  public int run(Arguments arguments, PrintWriter out, PrintWriter err) throws Exception {
    String host = arguments.text("--host");
    int port = arguments.integer("--port");
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "mcp-floor");
    Http.get(system).newServerAt(host, port).bind(route()).toCompletableFuture().get();
    out.println("mcp-floor listening on " + host + ":" + port);
    out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
    system.getWhenTerminated().thenRun(stopped::countDown);
    stopped.await();
    return 0;
  }

  private Route route() {
    return path(
        "mcp",
        () ->
            concat(
                post(() -> entity(Unmarshaller.entityToString(), this::answer)),
                delete(() -> complete(StatusCodes.OK)),
                complete(StatusCodes.METHOD_NOT_ALLOWED)));
  }

  private Route answer(String body) {
    JsonNode message;
    try {
      message = JSON.readTree(body);
    } catch (Exception e) {
      return complete(StatusCodes.BAD_REQUEST);
    }
    if (!message.has("id")) {
      return complete(StatusCodes.ACCEPTED); // a notification
    }
    ObjectNode response = JSON.createObjectNode().put("jsonrpc", "2.0");
    response.set("id", message.get("id"));
    ObjectNode result = response.putObject("result");
    String method = message.path("method").asText();
    JsonNode params = message.path("params");
    switch (method) {
      case "initialize" -> {
        result.put("protocolVersion", params.path("protocolVersion").asText("2025-06-18"));
        result.putObject("capabilities").putObject("tools");
        result.putObject("serverInfo").put("name", "mcp-floor").put("version", "1");
        return complete(
            HttpResponse.create()
                .withEntity(ContentTypes.APPLICATION_JSON, response.toString())
                .addHeader(RawHeader.create("Mcp-Session-Id", UUID.randomUUID().toString())));
      }
      case "tools/list" -> {
        ObjectNode echo = result.putArray("tools").addObject().put("name", "echo");
        echo.putObject("inputSchema").put("type", "object");
      }
      case "tools/call" ->
          result
              .putArray("content")
              .addObject()
              .put("type", "text")
              .put("text", "Echo: " + params.path("arguments").path("message").asText());
      default -> {
        response.remove("result");
        response.putObject("error").put("code", -32601).put("message", "method not found");
      }
    }
    return complete(
        HttpResponse.create().withEntity(ContentTypes.APPLICATION_JSON, response.toString()));
  }
}
