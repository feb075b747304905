package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
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
}
