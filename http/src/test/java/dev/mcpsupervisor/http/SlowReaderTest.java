package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.ConnectionLimits;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A client that does not read its SSE answer: its stream ends with an error, never quietly. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlowReaderTest {

  private static final String PATH = "/servers/fixture/mcp";
  private static final int STEPS = 5000;

  @Test
  void aClientThatDoesNotReadHasItsStreamBrokenAndCountedNotThinnedOut() throws Exception {
    ConnectionLimits defaults = ConnectionLimits.defaults();
    GatewayConfig config =
        GatewayConfig.builder()
            .host("127.0.0.1")
            .port(0)
            .maxBodyBytes(4 * 1024 * 1024)
            .sessionIdleTimeout(Duration.ofMinutes(30))
            .connectionLimits(
                new ConnectionLimits(
                    16 * 1024,
                    defaults.requestHeaderTimeout(),
                    defaults.maxConnections(),
                    defaults.maxStreamsPerIdentity()))
            .build();
    try (TestGateway gateway =
            TestGateway.start(
                // small socket buffers: the client's backlog reaches the gateway soon
                "pekko.http.server.socket-options.so-send-buffer-size = 4096",
                config,
                TestGateway.stdioFixture("fixture"));
        Socket socket = new Socket()) {
      String session = gateway.initialize(PATH);
      socket.setReceiveBufferSize(4096);
      socket.connect(new InetSocketAddress("127.0.0.1", gateway.server.address().getPort()));
      socket.setSoTimeout(30_000);
      byte[] body =
          TestGateway.request(
                  2,
                  "tools/call",
                  "{\"name\":\"progress\",\"arguments\":{\"steps\":"
                      + STEPS
                      + "},\"_meta\":{\"progressToken\":\"t\"}}")
              .getBytes(StandardCharsets.UTF_8);
      String head =
          "POST "
              + PATH
              + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              + "Accept: text/event-stream\r\nMcp-Session-Id: "
              + session
              + "\r\nMCP-Protocol-Version: "
              + ProtocolVersions.LATEST
              + "\r\nContent-Length: "
              + body.length
              + "\r\n\r\n";
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();

      // nobody reads: the stream's bytes pile up past 16 KiB. Before: the oldest events were
      // dropped (1,024 kept) and the stream ended cleanly with the answer, the gap invisible
      TestProbe.create(gateway.supervisor.actorSystem())
          .awaitAssert(
              Duration.ofSeconds(30),
              () -> {
                assertTrue(
                    gateway
                        .get("/metrics")
                        .body()
                        .contains(
                            "mcp_supervisor_downstream_rejections_total{reason=\"stream_overflow\"} 1"));
                return null;
              });
      // what the client still reads before the reset (often nothing: the reset discards it)
      String received = readUntilClosed(socket.getInputStream());
      assertFalse(
          received.contains("done " + STEPS), "the answer never arrives on a broken stream");
      assertFalse(received.endsWith("0\r\n\r\n"), "the chunked stream has no clean end");
    }
  }

  private static String readUntilClosed(InputStream in) {
    StringBuilder text = new StringBuilder();
    byte[] chunk = new byte[8192];
    try {
      int read;
      while ((read = in.read(chunk)) >= 0) {
        text.append(new String(chunk, 0, read, StandardCharsets.UTF_8));
      }
    } catch (IOException reset) {
      // the gateway aborted the connection: that is the error the client sees
    }
    return text.toString();
  }
}
