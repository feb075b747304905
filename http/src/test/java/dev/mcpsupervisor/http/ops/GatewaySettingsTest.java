package dev.mcpsupervisor.http.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.RequestStates;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The requestState key setting: nodes that share it open each other's states; a bad one stops. */
class GatewaySettingsTest {

  private static final RequestStates.State STATE =
      new RequestStates.State("s", 1, "tools/call", "t", null, Long.MAX_VALUE, null);

  @Test
  void gatewaysConfiguredWithOneKeyOpenEachOthersStates() {
    String key = Base64.getEncoder().encodeToString(new byte[32]);
    String sealed = GatewaySettings.requestStatesOf(key).seal(STATE);

    assertEquals(
        new RequestStates.Opened.Valid(STATE),
        GatewaySettings.requestStatesOf(key).open(sealed, "tools/call", "t", null));
    assertTrue(
        GatewaySettings.requestStatesOf("").open(sealed, "tools/call", "t", null)
            instanceof RequestStates.Opened.Invalid,
        "without a key, a process draws its own");
  }

  @Test
  void nodesOfOneClusterOpenEachOthersStatesAndNodesOfAnotherCannot() {
    RequestStates.State held =
        new RequestStates.State(
            "p-1", 1, "tools/call", "t", null, Long.MAX_VALUE, "pekko://gw@127.0.0.1:2552");
    String sealed =
        GatewaySettings.clusterRequestStates("shared-secret-of-the-cluster-000000").seal(held);

    assertEquals(
        new RequestStates.Opened.Valid(held),
        GatewaySettings.clusterRequestStates("shared-secret-of-the-cluster-000000")
            .open(sealed, "tools/call", "t", null));
    assertEquals(
        new RequestStates.Opened.Invalid("requestState failed verification"),
        GatewaySettings.clusterRequestStates("the-secret-of-another-cluster-00000")
            .open(sealed, "tools/call", "t", null));
  }

  @Test
  void aKeyThatIsNotBase64OrTooShortStopsWithTheSettingsName() {
    IllegalArgumentException notBase64 =
        assertThrows(IllegalArgumentException.class, () -> GatewaySettings.requestStatesOf("%%"));
    assertTrue(notBase64.getMessage().contains("requestStateKey"), notBase64.getMessage());
    String tooShort = Base64.getEncoder().encodeToString(new byte[16]);
    IllegalArgumentException shortKey =
        assertThrows(
            IllegalArgumentException.class, () -> GatewaySettings.requestStatesOf(tooShort));
    assertTrue(shortKey.getMessage().contains("32 bytes"), shortKey.getMessage());
  }
}
