package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GatewayConfigTest {

  private static GatewayConfig bound(String host) {
    return new GatewayConfig(host, 0, List.of(), List.of(), List.of(), 1024, Duration.ofMinutes(1));
  }

  @Test
  void loopbackAddressesAndLocalhostBindLoopback() {
    for (String host : List.of("127.0.0.1", "127.1.2.3", "::1", "localhost")) {
      assertTrue(bound(host).bindsLoopback(), host);
    }
  }

  @Test
  void everyOtherAddressIsExposed() {
    for (String host : List.of("0.0.0.0", "::", "10.0.0.1", "192.168.1.20")) {
      assertFalse(bound(host).bindsLoopback(), host);
    }
  }

  @Test
  void anotherAddressKeepsEveryOtherSetting() {
    GatewayConfig limited =
        new GatewayConfig(
            "127.0.0.1",
            8080,
            List.of("t".repeat(GatewayConfig.MIN_TOKEN_LENGTH)),
            List.of("https://app.example.com"),
            List.of("gateway.example.com"),
            1024,
            Duration.ofMinutes(1),
            List.of(),
            null,
            Map.of(),
            new ConnectionLimits(4096, Duration.ofSeconds(3), 10, 2),
            new SessionLimits(500, 20, 16, 8, 50));
    GatewayConfig moved = limited.withAddress("0.0.0.0", 9090);
    assertEquals("0.0.0.0", moved.host());
    assertEquals(9090, moved.port());
    assertEquals(
        limited,
        new GatewayConfig(
            limited.host(),
            limited.port(),
            moved.authTokens(),
            moved.allowedOrigins(),
            moved.allowedHosts(),
            moved.maxBodyBytes(),
            moved.sessionIdleTimeout(),
            moved.namedTokens(),
            moved.oauth(),
            moved.identities(),
            moved.connectionLimits(),
            moved.sessionLimits()));
  }
}
