package dev.mcpsupervisor.http.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class AdminPageTest {

  private static final String HOSTILE = "<script>alert('x')</script>\"&";

  @Test
  void whatClientsAndServersChoseIsEscapedEverywhere() {
    String page =
        AdminPage.render(
            report(),
            List.of(new OpsJournal.Entry(1, Instant.EPOCH, "lost", "demo", "demo-1", "1", HOSTILE)),
            Instant.EPOCH);
    assertFalse(page.contains("<script>alert"), "no markup of a client's in the page");
    assertTrue(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;"));
    assertEquals(1, count(page, "<script>"), "the page's own script only");
  }

  @Test
  void thePageShowsTheTreeWithItsStatesAndActions() {
    String page = AdminPage.render(report(), List.of(), Instant.EPOCH);
    assertTrue(page.contains("data-server=\"demo\""));
    assertTrue(page.contains("data-state=\"ready\" data-pid=\"4242\" data-restarts=\"2\""));
    assertTrue(page.contains("data-action=\"/admin/servers/demo-1/sessions/3/restart\""));
    assertTrue(page.contains("data-action=\"/admin/sessions/abcdefgh%E2%80%A6/close\""));
    assertTrue(page.contains("data-circuit=\"open\""));
    assertTrue(page.contains("p99"));
    assertTrue(page.contains("<polyline"), "the p99 line of the chart");
  }

  @Test
  void aClustersPageNamesEachSessionsNodeAndEachMembersConfiguration() {
    String b = "pekko://sys@10.0.0.2:25520";
    ObjectNode report = report();
    ((ObjectNode) report.path("downstreamSessions").get(0)).put("node", b);
    ((ObjectNode) report.path("serverKeys").get(0)).put("node", b);
    ObjectNode cluster = report.putObject("cluster").put("self", "pekko://sys@10.0.0.1:25520");
    cluster.putArray("members");
    cluster.put("drift", true);
    cluster
        .putArray("nodes")
        .add(object().put("node", b).put("state", "answered").put("fingerprint", "f00d"))
        .add(object().put("node", "pekko://sys@10.0.0.3:25520").put("state", "unreachable"));
    String page = AdminPage.render(report, List.of(), Instant.EPOCH);
    String onB = "?node=pekko%3A%2F%2Fsys%4010.0.0.2%3A25520";
    assertTrue(page.contains("data-action=\"/admin/servers/demo-1/sessions/3/restart" + onB));
    assertTrue(page.contains("data-action=\"/admin/sessions/abcdefgh%E2%80%A6/close" + onB));
    assertTrue(page.contains("<th>node</th>"), "a node column");
    assertTrue(page.contains("data-node=\"" + b + "\" data-state=\"answered\""));
    assertTrue(page.contains("<code>f00d</code>"));
    assertTrue(page.contains("data-state=\"unreachable\""));
    assertTrue(page.contains("configuration drift"));
    String single = AdminPage.render(report(), List.of(), Instant.EPOCH);
    assertFalse(single.contains("?node="), "a single node's actions name none");
    assertFalse(single.contains("<th>node</th>"));
  }

  private static ObjectNode object() {
    return JsonRpcCodec.emptyObject();
  }

  @Test
  void theTokenPageShowsNothingOfTheGateway() {
    String page = AdminPage.render(null, List.of(), Instant.EPOCH);
    assertTrue(page.contains("data-token=\"needed\""));
    assertFalse(page.contains("data-server="));
    assertFalse(page.contains("data-session="));
  }

  @Test
  void thePolicyAllowsExactlyTheInlinedStyleAndScript() throws Exception {
    String page = AdminPage.render(report(), List.of(), Instant.EPOCH);
    String policy = AdminPage.contentSecurityPolicy();
    assertTrue(policy.startsWith("default-src 'none'"));
    assertTrue(policy.contains("'" + sha256(between(page, "<style>", "</style>")) + "'"));
    assertTrue(policy.contains("'" + sha256(between(page, "<script>", "</script>")) + "'"));
    assertFalse(policy.contains("unsafe-inline"));
  }

  @Test
  void durationsReadAsAPersonSaysThem() {
    assertEquals("59 s", AdminPage.duration(59));
    assertEquals("2 min 5 s", AdminPage.duration(125));
    assertEquals("3 h 1 min", AdminPage.duration(3 * 3600 + 61));
    assertEquals("2 d 3 h", AdminPage.duration(2 * 86400 + 3 * 3600));
  }

  private static ObjectNode report() {
    ObjectNode report = JsonRpcCodec.emptyObject();
    ObjectNode downstream = report.putArray("downstreamSessions").addObject();
    downstream.put("id", "abcdefgh…").put("endpoint", "/mcp").put("identity", "ops");
    downstream.put("protocolVersion", "2025-11-25").put("idleSeconds", 3).put("leases", 1);
    downstream.putObject("client").put("name", HOSTILE).put("version", "1");
    ObjectNode key = report.putArray("serverKeys").addObject();
    key.put("server", "demo").put("key", "demo-1").put("transport", "stdio");
    key.put("protocol", "auto").put("circuit", "open").put("leases", 1);
    ObjectNode session = key.putArray("sessions").addObject();
    session.put("id", 3).put("state", "ready").put("refCount", 1).put("inFlight", 0);
    session.put("stashed", 0).put("restarts", 2).put("lastLoss", HOSTILE);
    session.put("ageSeconds", 10).put("pid", 4242);
    ObjectNode calls = report.putObject("servers").putObject("demo");
    calls.put("callsPerSecond", 1.5).put("errorRate", 0.1).put("p50Millis", 2.0);
    calls.put("p99Millis", 40.0).put("slotSeconds", 10);
    calls.putArray("callsPerSecondBySlot").add(0.0).add(1.0).add(2.0);
    calls.putArray("p99MillisBySlot").add(0.0).add(20.0).add(40.0);
    return report;
  }

  private static String between(String text, String open, String close) {
    Matcher matcher =
        Pattern.compile(Pattern.quote(open) + "(.*?)" + Pattern.quote(close), Pattern.DOTALL)
            .matcher(text);
    assertTrue(matcher.find(), open);
    return matcher.group(1);
  }

  private static String sha256(String text) throws Exception {
    return "sha256-"
        + Base64.getEncoder()
            .encodeToString(
                MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static int count(String text, String part) {
    int count = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      count++;
    }
    return count;
  }
}
