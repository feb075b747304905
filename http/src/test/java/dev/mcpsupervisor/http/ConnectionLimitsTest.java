package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.ConnectionLimits;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.SessionLimits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Slow and idle connections cannot lock the gateway: enough connections, a deadline for request
 * headers, and a cap on each caller's open streams. Real sockets on 127.0.0.1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConnectionLimitsTest {

  private static final String PATH = "/servers/fixture/mcp";

  private static final String TOKEN = "connection-limits-token-0123456789abcdef";
  private static final String[] AUTH = {"Authorization", "Bearer " + TOKEN};

  private static GatewayConfig config(Duration headerTimeout, int maxStreamsPerIdentity) {
    return config(headerTimeout, maxStreamsPerIdentity, List.of());
  }

  /** With {@code tokens}, a caller is its token: loopback callers without one are not counted. */
  private static GatewayConfig config(
      Duration headerTimeout, int maxStreamsPerIdentity, List<String> tokens) {
    ConnectionLimits connections = ConnectionLimits.defaults();
    SessionLimits sessions = SessionLimits.defaults();
    return GatewayConfig.builder()
        .host("127.0.0.1")
        .port(0)
        .authTokens(tokens)
        .maxBodyBytes(4 * 1024 * 1024)
        .sessionIdleTimeout(Duration.ofMinutes(30))
        .connectionLimits(
            new ConnectionLimits(
                connections.maxStreamBufferBytes(),
                headerTimeout,
                connections.maxConnections(),
                maxStreamsPerIdentity))
        .sessionLimits(
            new SessionLimits(
                sessions.maxDownstreamSessions(),
                // one token opens every session of the racing stream openers: only the stream cap
                // may refuse
                sessions.maxDownstreamSessions(),
                sessions.maxInflightPerDownstreamSession(),
                sessions.maxInflightPerIdentity(),
                sessions.maxBatchLength()))
        .build();
  }

  /** Connections that send a request line and a header, then one byte of a header at a time. */
  private static final class Dribblers implements AutoCloseable {
    final List<SocketChannel> channels = new ArrayList<>();

    Dribblers(InetSocketAddress address, int count) throws IOException {
      for (int i = 0; i < count; i++) {
        SocketChannel channel = SocketChannel.open(address);
        channel.configureBlocking(false);
        channels.add(channel);
        write(channel, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
      }
    }

    /** One more byte on each open connection; answers how many the server has closed. */
    int dribble() {
      int closed = 0;
      ByteBuffer sink = ByteBuffer.allocate(256);
      for (SocketChannel channel : channels) {
        try {
          sink.clear();
          if (channel.read(sink) < 0) {
            closed++;
            continue;
          }
          write(channel, "a");
        } catch (IOException reset) {
          closed++;
        }
      }
      return closed;
    }

    private static void write(SocketChannel channel, String text) throws IOException {
      channel.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)));
    }

    @Override
    public void close() {
      for (SocketChannel channel : channels) {
        try {
          channel.close();
        } catch (IOException ignored) {
          // closing a test socket
        }
      }
    }
  }

  @Test
  void elevenHundredDribblingConnectionsDoNotLockOutAFreshRequest() throws Exception {
    try (TestGateway gateway =
            TestGateway.start(
                config(Duration.ofMinutes(1), 64), TestGateway.stdioFixture("fixture"));
        Dribblers dribblers = new Dribblers(gateway.server.address(), 1100)) {
      for (int round = 0; round < 3; round++) {
        assertEquals(0, dribblers.dribble(), "the deadline is a minute away");
        // before: Pekko's 1,024 max-connections left the fresh connection in the accept queue
        // behind the dribblers until their deadline, a minute away, and this timed out; 10 s is
        // far below that and above a loaded machine's stalls (1 s failed at load average 17-27)
        long asked = System.nanoTime();
        HttpResponse<String> fresh =
            gateway.send(
                HttpRequest.newBuilder(URI.create(gateway.base + "/healthz"))
                    .timeout(Duration.ofSeconds(10))
                    .GET()
                    .build());
        assertEquals(200, fresh.statusCode());
        System.out.println(
            "fresh request beside 1100 dribblers: "
                + (System.nanoTime() - asked) / 1_000_000
                + " ms");
      }
    }
  }

  @Test
  void connectionsThatDribbleHeadersAreClosedAtTheDeadlineButAnSseStreamIsNotCut()
      throws Exception {
    Duration deadline = Duration.ofSeconds(1);
    try (TestGateway gateway =
        TestGateway.start(
            "mcp-supervisor.http.sseKeepAlive = 200ms",
            config(deadline, 64),
            TestGateway.stdioFixture("fixture"))) {
      String session = gateway.initialize(PATH);
      HttpResponse<InputStream> stream = openStream(gateway, session).get(10, TimeUnit.SECONDS);
      assertEquals(200, stream.statusCode());
      BlockingQueue<Long> linesAt = readLines(stream.body());
      long opened = System.nanoTime();
      try (Dribblers dribblers = new Dribblers(gateway.server.address(), 50)) {
        int closed = 0;
        // before: every byte reset Pekko's idle timeout, and no dribbler was ever closed
        for (int round = 0; round < 100 && closed < 50; round++) {
          closed = dribblers.dribble();
          Thread.sleep(100); // the dribble's pace, not a synchronization
        }
        assertEquals(50, closed, "every dribbler closed within 10 s");
      }
      long afterDeadline = System.nanoTime();
      assertTrue(afterDeadline - opened > deadline.toNanos());
      Long line;
      do {
        line = linesAt.poll(5, TimeUnit.SECONDS);
      } while (line != null && line < afterDeadline);
      assertTrue(line != null, "the SSE stream still carries keep-alives past the deadline");
      stream.body().close();
    }
  }

  @Test
  void hundredsOfRacingStreamOpenersAreAdmittedUpToTheCap() throws Exception {
    int cap = 20;
    int openers = 200;
    try (TestGateway gateway =
        TestGateway.start(
            config(Duration.ofSeconds(20), cap, List.of(TOKEN)),
            TestGateway.stdioFixture("fixture"))) {
      List<String> sessions = new ArrayList<>();
      for (int i = 0; i < openers; i++) {
        sessions.add(initialize(gateway));
      }
      List<CompletableFuture<HttpResponse<InputStream>>> opening = new ArrayList<>();
      for (String session : sessions) {
        opening.add(openStream(gateway, session));
      }
      int admitted = 0;
      int refused = 0;
      List<HttpResponse<InputStream>> open = new ArrayList<>();
      for (CompletableFuture<HttpResponse<InputStream>> attempt : opening) {
        HttpResponse<InputStream> response = attempt.get(30, TimeUnit.SECONDS);
        open.add(response);
        if (response.statusCode() == 200) {
          admitted++;
        } else {
          assertEquals(429, response.statusCode());
          refused++;
        }
      }
      open.forEach(response -> close(response.body()));
      // before: no cap, all 200 were admitted
      assertEquals(cap, admitted);
      assertEquals(openers - cap, refused);
      assertTrue(
          gateway
              .get("/metrics", AUTH)
              .body()
              .contains(
                  "mcp_supervisor_downstream_rejections_total{reason=\"too_many_streams\"} "
                      + (openers - cap)));
    }
  }

  @Test
  void listenStreamsCountAgainstTheCapAndAClosedOneGivesItsPermitBack() throws Exception {
    try (TestGateway gateway =
        TestGateway.start(
            // the server notices a client gone when it next writes to it
            "mcp-supervisor.http.sseKeepAlive = 100ms",
            config(Duration.ofSeconds(20), 3, List.of(TOKEN)),
            TestGateway.stdioFixture("fixture"))) {
      List<HttpResponse<InputStream>> listening = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        HttpResponse<InputStream> stream = listen(gateway).get(10, TimeUnit.SECONDS);
        assertEquals(200, stream.statusCode());
        listening.add(stream);
      }
      HttpResponse<InputStream> fourth = listen(gateway).get(10, TimeUnit.SECONDS);
      // before: a fourth listen stream was opened like the others
      assertEquals(429, fourth.statusCode());
      close(fourth.body());

      close(listening.remove(0).body());
      TestProbe.create(gateway.supervisor.actorSystem())
          .awaitAssert(
              Duration.ofSeconds(10),
              () -> {
                HttpResponse<InputStream> again = listen(gateway).get(10, TimeUnit.SECONDS);
                listening.add(again);
                assertEquals(200, again.statusCode(), "the closed stream's permit is free");
                return null;
              });
      listening.forEach(response -> close(response.body()));
    }
  }

  private static CompletableFuture<HttpResponse<InputStream>> listen(TestGateway gateway) {
    String body =
        TestGateway.request(
            1,
            "subscriptions/listen",
            "{\"notifications\":{\"toolsListChanged\":true},"
                + StatelessClient.meta("{}", "")
                + "}");
    return gateway.http.sendAsync(
        gateway
            .postRequest(PATH, null, body, StatelessClient.headers("subscriptions/listen", null))
            .header(AUTH[0], AUTH[1])
            .build(),
        HttpResponse.BodyHandlers.ofInputStream());
  }

  private static CompletableFuture<HttpResponse<InputStream>> openStream(
      TestGateway gateway, String session) {
    return gateway.http.sendAsync(
        gateway
            .request(PATH)
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", session)
            .header(AUTH[0], AUTH[1])
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofInputStream());
  }

  /** initialize + notifications/initialized with the token; answers the new session id. */
  private static String initialize(TestGateway gateway) {
    HttpResponse<String> response =
        gateway.post(PATH, null, TestGateway.initializeBody(ProtocolVersions.LATEST, "{}"), AUTH);
    assertEquals(200, response.statusCode(), response.body());
    String session = response.headers().firstValue("Mcp-Session-Id").orElseThrow();
    assertEquals(
        202,
        gateway
            .post(
                PATH,
                session,
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                AUTH)
            .statusCode());
    return session;
  }

  /** When each line of {@code body} arrived (nanoTime), read on a thread of its own. */
  private static BlockingQueue<Long> readLines(InputStream body) {
    BlockingQueue<Long> arrivals = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                while (lines.readLine() != null) {
                  arrivals.add(System.nanoTime());
                }
              } catch (IOException closed) {
                // the test hung up
              }
            },
            "sse-lines");
    reader.setDaemon(true);
    reader.start();
    return arrivals;
  }

  private static void close(InputStream body) {
    try {
      body.close();
    } catch (IOException ignored) {
      // hanging up
    }
  }
}
