package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code gateway.allowedHosts}: only the listed Host names pass (port and case aside), on every
 * path; {@code ["*"]} lets any through. Real HTTP on 127.0.0.1 with forged Host headers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AllowedHostsTest {

  private static final String INITIALIZE = TestGateway.initializeBody("2025-11-25", "{}");

  private static TestGateway start(List<String> allowedHosts) {
    return TestGateway.start(
        GatewayConfig.builder()
            .host("127.0.0.1")
            .port(0)
            .allowedHosts(allowedHosts)
            .maxBodyBytes(1024 * 1024)
            .sessionIdleTimeout(Duration.ofMinutes(30))
            .build(),
        TestGateway.stdioFixture("fixture"));
  }

  @Test
  void onlyListedHostsPassAndOthersGet403NamingTheSetting() throws IOException {
    try (TestGateway gateway = start(List.of("gateway.example.com", "[::1]"))) {
      int port = gateway.server.address().getPort();
      for (String host :
          List.of("gateway.example.com", "GATEWAY.Example.COM:" + port, "[::1]:" + port)) {
        RawHttp.Response accepted = RawHttp.send(port, "POST", "/mcp", host, INITIALIZE);
        assertEquals(200, accepted.status(), host + ": " + accepted.body());
      }
      // loopback names are not implied once a list is set
      for (String host :
          List.of(
              "evil.example.com", "localhost:" + port, "127.0.0.1", "gateway.example.com.evil")) {
        RawHttp.Response refused = RawHttp.send(port, "POST", "/mcp", host, INITIALIZE);
        assertEquals(403, refused.status(), host + ": " + refused.body());
        assertEquals(
            JsonRpcErrorCodes.INVALID_REQUEST,
            json(refused.body()).path("error").path("code").asInt());
        assertTrue(refused.body().contains("gateway.allowedHosts"), refused.body());
      }
      assertEquals(403, RawHttp.send(port, "GET", "/healthz", "evil.example.com", null).status());
      // HTTP/1.1 without Host never reaches the check: the server answers 400 itself
      assertEquals(400, RawHttp.send(port, "GET", "/healthz", null, null).status());
      assertEquals(
          200, RawHttp.send(port, "GET", "/healthz", "gateway.example.com", null).status());
      assertTrue(
          gateway
              .metrics
              .scrape(null)
              .contains("mcp_supervisor_downstream_rejections_total{reason=\"forbidden_host\"}"));
    }
  }

  @Test
  void theWildcardAcceptsAnyHost() throws IOException {
    try (TestGateway gateway = start(List.of("*"))) {
      int port = gateway.server.address().getPort();
      for (String host : List.of("evil.example.com", "anything.internal:" + port, "10.0.0.5")) {
        RawHttp.Response accepted = RawHttp.send(port, "POST", "/mcp", host, INITIALIZE);
        assertEquals(200, accepted.status(), host + ": " + accepted.body());
      }
    }
  }
}
