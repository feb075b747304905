package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.ProtocolVersions;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the gateway keeps from clients and upstreams, and what of it clients see. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UpstreamSecretsTest {

  @Test
  void aClientsNameIsKeptAndShownBounded() {
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      String longName = "n".repeat(100_000);
      String body =
          TestGateway.initializeBody(ProtocolVersions.V2025_06_18, "{}")
              .replace("\"test-client\"", "\"" + longName + "\"");
      HttpResponse<String> initialized = gateway.post("/servers/fixture/mcp", null, body);
      assertEquals(200, initialized.statusCode(), initialized.body());

      String name =
          json(gateway.get("/admin/sessions").body())
              .path("downstreamSessions")
              .path(0)
              .path("client")
              .path("name")
              .asText();
      assertTrue(name.length() <= AdminReport.MAX_CLIENT_TEXT + 1, "length " + name.length());
      assertTrue(name.startsWith("nnnn"), name);
    }
  }
}
