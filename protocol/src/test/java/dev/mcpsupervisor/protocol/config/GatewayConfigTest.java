package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class GatewayConfigTest {

  private static GatewayConfig bound(String host) {
    return GatewayConfig.builder()
        .host(host)
        .port(0)
        .maxBodyBytes(1024)
        .sessionIdleTimeout(Duration.ofMinutes(1))
        .build();
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
        GatewayConfig.builder()
            .host("127.0.0.1")
            .port(8080)
            .authTokens(List.of("t".repeat(GatewayConfig.MIN_TOKEN_LENGTH)))
            .allowedOrigins(List.of("https://app.example.com"))
            .allowedHosts(List.of("gateway.example.com"))
            .maxBodyBytes(1024)
            .sessionIdleTimeout(Duration.ofMinutes(1))
            .connectionLimits(new ConnectionLimits(4096, Duration.ofSeconds(3), 10, 2))
            .sessionLimits(new SessionLimits(500, 20, 16, 8, 50))
            .build();
    GatewayConfig moved = limited.withAddress("0.0.0.0", 9090);
    assertEquals("0.0.0.0", moved.host());
    assertEquals(9090, moved.port());
    assertEquals(
        limited,
        GatewayConfig.builder()
            .host(limited.host())
            .port(limited.port())
            .allowedOrigins(moved.allowedOrigins())
            .allowedHosts(moved.allowedHosts())
            .maxBodyBytes(moved.maxBodyBytes())
            .sessionIdleTimeout(moved.sessionIdleTimeout())
            .namedTokens(moved.namedTokens())
            .oauth(moved.oauth())
            .identities(moved.identities())
            .connectionLimits(moved.connectionLimits())
            .sessionLimits(moved.sessionLimits())
            .build());
  }

  @Test
  void aBuilderStartsFromWhatAFileWithoutTheSectionGets() {
    GatewayConfig defaults = GatewayConfig.defaults();
    assertEquals("127.0.0.1", defaults.host());
    assertEquals(8080, defaults.port());
    assertFalse(defaults.requiresAuthentication());
    assertEquals(defaults, GatewayConfig.builder().build());
    String token = "t".repeat(GatewayConfig.MIN_TOKEN_LENGTH);
    GatewayConfig withToken = GatewayConfig.builder().authTokens(List.of(token)).build();
    assertEquals(List.of(new NamedToken("token-1", token)), withToken.namedTokens());
    GatewayConfig named =
        withToken.toBuilder().namedTokens(List.of(new NamedToken("ops", token))).build();
    assertEquals(List.of(token), named.authTokens());
    assertEquals(named, named.toBuilder().build());
  }
}
