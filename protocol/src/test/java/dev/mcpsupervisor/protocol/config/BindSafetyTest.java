package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BindSafetyTest {

  private static final String TOKEN = "0123456789abcdef0123456789abcdef";

  private static GatewayConfig gateway(String host, List<String> tokens, List<String> hosts) {
    return GatewayConfig.builder()
        .host(host)
        .port(0)
        .authTokens(tokens)
        .allowedHosts(hosts)
        .maxBodyBytes(1024)
        .sessionIdleTimeout(Duration.ofMinutes(1))
        .build();
  }

  @Test
  void loopbackBindsServeWithoutTokensOrAllowedHosts() {
    for (String host : List.of("127.0.0.1", "::1", "localhost")) {
      GatewayConfig open = gateway(host, List.of(), List.of());
      assertEquals(Optional.empty(), BindSafety.refusal(open, false), host);
    }
  }

  @Test
  void anExposedBindWithoutTokensIsRefusedUnlessAllowed() {
    GatewayConfig open = gateway("0.0.0.0", List.of(), List.of("gateway.example.com"));
    assertEquals(
        Optional.of(
            "0.0.0.0 is not a loopback address and gateway.authTokens is empty: set tokens (at least"
                + " 32 characters each) or gateway.oauth, or pass --allow-unauthenticated"),
        BindSafety.refusal(open, false));
    assertEquals(Optional.empty(), BindSafety.refusal(open, true));
  }

  @Test
  void anExposedBindWithoutAllowedHostsIsRefusedEvenWithTokensOrTheWaiver() {
    String expected =
        "0.0.0.0 is not a loopback address and gateway.allowedHosts is empty: list the names clients"
            + " reach the gateway by, or [\"*\"] to accept any Host header";
    assertEquals(
        Optional.of(expected),
        BindSafety.refusal(gateway("0.0.0.0", List.of(TOKEN), List.of()), false));
    assertEquals(
        Optional.of(expected), BindSafety.refusal(gateway("0.0.0.0", List.of(), List.of()), true));
  }

  @Test
  void anExposedBindWithTokensAndHostsOrTheWildcardServes() {
    for (List<String> hosts : List.of(List.of("gateway.example.com"), List.of("*"))) {
      assertEquals(
          Optional.empty(),
          BindSafety.refusal(gateway("0.0.0.0", List.of(TOKEN), hosts), false),
          hosts.toString());
    }
  }
}
