package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mcpsupervisor.fixture.FixtureTools;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Callers of a fixture server's echo through a gateway, each checking that every answer carries its
 * own message ({@code <label>-<era>-<caller>-<call>}, which a recording upstream can read back).
 * Callers alternate between the aggregated {@code /mcp} and the server's own endpoint, the two eras
 * in opposite order, so racing callers cover both routes in both eras.
 *
 * @param server the server's name (its tools' prefix on {@code /mcp})
 * @param callsPerCaller how many echoes each caller sends
 */
record EchoCallers(TestGateway gateway, String server, int callsPerCaller) {

  /** A session-era caller: a session, its calls, then its DELETE. */
  void asSession(String label, int caller, String... auth) {
    boolean aggregated = caller % 2 == 0;
    String path = path(aggregated);
    String tool = tool(aggregated);
    String session = gateway.initializeWith(path, auth);
    for (int call = 0; call < callsPerCaller; call++) {
      String message = label + "-session-" + caller + "-" + call;
      HttpResponse<String> answer =
          gateway.post(
              path,
              session,
              TestGateway.callTool(call + 2, tool, "{\"message\":\"" + message + "\"}"),
              auth);
      assertEquals(message, TestGateway.text(TestGateway.answer(answer)), answer.body());
    }
    assertEquals(200, gateway.delete(path, session, auth).statusCode()); // within the session cap
  }

  /** A 2026-07-28 caller's calls. */
  void stateless(String label, int caller, String... auth) {
    boolean aggregated = caller % 2 == 1;
    String path = path(aggregated);
    String tool = tool(aggregated);
    StatelessClient client = new StatelessClient(gateway, "{}");
    for (int call = 0; call < callsPerCaller; call++) {
      String message = label + "-stateless-" + caller + "-" + call;
      List<String> headers = new ArrayList<>(List.of(StatelessClient.headers("tools/call", tool)));
      headers.addAll(List.of(auth));
      HttpResponse<String> answer =
          gateway.post(
              path,
              null,
              client.toolCall(call, tool, "{\"message\":\"" + message + "\"}", "", ""),
              headers.toArray(String[]::new));
      assertEquals(message, TestGateway.text(TestGateway.answer(answer)), answer.body());
    }
  }

  private String path(boolean aggregated) {
    return aggregated ? "/mcp" : "/servers/" + server + "/mcp";
  }

  private String tool(boolean aggregated) {
    return aggregated ? server + "__" + FixtureTools.ECHO : FixtureTools.ECHO;
  }
}
