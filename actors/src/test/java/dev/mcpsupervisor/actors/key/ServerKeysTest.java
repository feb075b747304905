package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerKeysTest {

  private static ServerConfig server(String name, ServerSpec spec) {
    return new ServerConfig(
        name, spec, Isolation.SHARED, 4, 8, Duration.ofSeconds(30), Duration.ofMinutes(5), null);
  }

  private static ServerSpec http(UpstreamProtocol protocol) {
    return new ServerSpec.StreamableHttp(URI.create("http://127.0.0.1:1/mcp"), Map.of(), protocol);
  }

  private final ServerKeys keys =
      new ServerKeys(
          new SupervisorConfig(
              Map.of(
                  "both", server("both", http(UpstreamProtocol.AUTO)),
                  "modern", server("modern", http(UpstreamProtocol.STATELESS)),
                  "local",
                      server(
                          "local",
                          new ServerSpec.Stdio("fixture", List.of(), Map.of(), null, null))),
              null));

  @Test
  void anAutoHttpServerHasAKeyForEachEraOfCallerSpeakingItsEraFirst() {
    String sessionEra = keys.keyFor("both", false);
    String stateless = keys.keyFor("both", true);
    assertNotEquals(sessionEra, stateless);
    assertEquals(List.of(sessionEra, stateless), keys.keysOf("both"));
    assertEquals(
        UpstreamProtocol.AUTO_SESSION_ERA_FIRST,
        keys.spokenBy("both", sessionEra).spec().protocol());
    assertEquals(UpstreamProtocol.AUTO, keys.spokenBy("both", stateless).spec().protocol());
  }

  @Test
  void everyOtherServerHasOneKeyForEveryCaller() {
    for (String name : List.of("modern", "local")) {
      assertEquals(keys.keyFor(name, false), keys.keyFor(name, true), name);
      assertEquals(List.of(keys.keyFor(name, false)), keys.keysOf(name), name);
      assertEquals(name, keys.spokenBy(name, keys.keyFor(name, true)).name());
    }
    assertEquals(
        UpstreamProtocol.STATELESS,
        keys.spokenBy("modern", keys.keyFor("modern", false)).spec().protocol());
  }

  @Test
  void anUnknownServerHasNone() {
    assertNull(keys.keyFor("nope", true));
    assertEquals(List.of(), keys.keysOf("nope"));
  }
}
