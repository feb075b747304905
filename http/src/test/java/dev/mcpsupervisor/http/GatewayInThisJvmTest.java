package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.http.ops.ConfigReloader;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.Materializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gateway with no port ({@link GatewayServer#startInThisJvm}): served by {@code handle} alone.
 */
@Timeout(60)
class GatewayInThisJvmTest {

  private static final Pattern SOCKET = Pattern.compile("socket:\\[(\\d+)]");
  private static final String LISTEN = "0A";

  private Materializer materializer;

  @Test
  void itServesThisJvmsFrontAndListensOnNoPort() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "reads Linux's /proc");
    SessionSupervisor supervisor = SessionSupervisor.start(new SupervisorConfig(Map.of(), null));
    materializer = Materializer.matFromSystem(supervisor.actorSystem());
    try {
      Set<String> listeningBefore = listeningSockets();
      GatewayMetrics metrics = new GatewayMetrics();
      GatewayServer gateway =
          GatewayServer.startInThisJvm(
                  supervisor,
                  GatewayConfig.defaults(),
                  metrics,
                  new ConfigReloader(null, supervisor, metrics, ConfigReloader.BUILT_IN))
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);

      assertEquals(listeningBefore, listeningSockets(), "no socket of this JVM's listens anew");
      assertEquals(0, gateway.address().getPort());
      assertEquals(
          200, answer(gateway, HttpRequest.GET("http://127.0.0.1/livez")).status().intValue());
      assertEquals(
          200, answer(gateway, HttpRequest.GET("http://127.0.0.1/readyz")).status().intValue());
      HttpResponse initialized =
          answer(
              gateway,
              HttpRequest.create("http://127.0.0.1/mcp")
                  .withMethod(HttpMethods.POST)
                  .addHeader(RawHeader.create("Host", "127.0.0.1"))
                  .addHeader(RawHeader.create("Accept", "application/json, text/event-stream"))
                  .withEntity(
                      HttpEntities.create(
                          ContentTypes.APPLICATION_JSON,
                          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                              + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                              + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}")));
      assertEquals(200, initialized.status().intValue());
      assertTrue(initialized.getHeader("Mcp-Session-Id").isPresent(), initialized.toString());

      gateway.stop(Duration.ofMillis(500)).toCompletableFuture().get(30, TimeUnit.SECONDS);
    } finally {
      supervisor.shutdown().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private HttpResponse answer(GatewayServer gateway, HttpRequest request) throws Exception {
    HttpResponse response = gateway.handle(request).toCompletableFuture().get(30, TimeUnit.SECONDS);
    response.discardEntityBytes(materializer);
    return response;
  }

  /** The inodes of this JVM's TCP sockets that listen. */
  private static Set<String> listeningSockets() throws IOException {
    Set<String> own = new HashSet<>();
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : fds.toList()) {
        try {
          Matcher socket = SOCKET.matcher(Files.readSymbolicLink(fd).toString());
          if (socket.matches()) {
            own.add(socket.group(1));
          }
        } catch (IOException gone) {
          // closed meanwhile
        }
      }
    }
    Set<String> listening = new HashSet<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      Path path = Path.of(table);
      if (!Files.exists(path)) {
        continue;
      }
      List<String> lines = Files.readAllLines(path);
      for (String line : lines.subList(1, lines.size())) {
        String[] fields = line.trim().split("\\s+");
        if (fields.length > 9 && fields[3].equals(LISTEN) && own.contains(fields[9])) {
          listening.add(fields[9]);
        }
      }
    }
    return listening;
  }
}
