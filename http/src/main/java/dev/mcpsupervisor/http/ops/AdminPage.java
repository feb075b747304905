package dev.mcpsupervisor.http.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The operations page ({@code GET /admin}): one self-contained HTML document, its style and script
 * shipped in the jar ({@code admin.css}, {@code admin.js}) and inlined, allowed by their hashes in
 * the page's Content-Security-Policy. Everything the page shows is rendered here, from the {@code
 * /admin/sessions} document and the {@link OpsJournal}: the page as served is the snapshot (what a
 * browser without JavaScript shows, refreshed every 5 s), and the live page swaps in the same
 * fragments as {@code /admin/events} sends them. Every text is escaped; nothing here reads a
 * secret, since the report holds none.
 */
public final class AdminPage {

  /** The parts of the page that {@code view} events replace, by element id. */
  static final List<String> SECTIONS = List.of("cluster", "servers", "sessions");

  private static final String TEMPLATE = resource("admin.html");
  private static final String STYLE = resource("admin.css");
  private static final String SCRIPT = resource("admin.js");
  private static final String POLICY =
      "default-src 'none'; style-src '"
          + sha256(STYLE)
          + "'; script-src '"
          + sha256(SCRIPT)
          + "'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'self';"
          + " frame-ancestors 'none'";
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  private AdminPage() {}

  /** The Content-Security-Policy the page is served with. */
  public static String contentSecurityPolicy() {
    return POLICY;
  }

  /**
   * The whole page; {@code report} null: the page of a gateway that wants a token first (no data, a
   * form for the token).
   */
  public static String render(ObjectNode report, List<OpsJournal.Entry> events, Instant now) {
    ObjectNode fragments = report == null ? null : fragments(report);
    StringBuilder eventItems = new StringBuilder();
    for (int i = events.size() - 1; i >= 0; i--) {
      eventItems.append(event(events.get(i)));
    }
    return TEMPLATE
        .replace("{{style}}", STYLE)
        .replace("{{script}}", SCRIPT)
        .replace("{{token}}", report == null ? "needed" : "")
        .replace("{{at}}", CLOCK.format(now) + " UTC")
        .replace("{{cluster}}", fragments == null ? "" : fragments.get("cluster").asText())
        .replace(
            "{{servers}}",
            fragments == null
                ? "<p class=\"empty\">This gateway wants its admin token: enter it above.</p>"
                : fragments.get("servers").asText())
        .replace("{{sessions}}", fragments == null ? "" : fragments.get("sessions").asText())
        .replace("{{events}}", eventItems);
  }

  /** The {@link #SECTIONS} as HTML, by id: a {@code view} event's data. */
  public static ObjectNode fragments(ObjectNode report) {
    ObjectNode fragments = JsonRpcCodec.emptyObject();
    fragments.put("cluster", config(report.path("config")) + cluster(report.path("cluster")));
    fragments.put("servers", servers(report));
    fragments.put("sessions", sessions(report.path("downstreamSessions")));
    return fragments;
  }

  /** One line of the event list, newest first on the page. */
  public static String event(OpsJournal.Entry entry) {
    StringBuilder line = new StringBuilder();
    line.append("<li class=\"event kind-")
        .append(slug(entry.kind()))
        .append("\" data-seq=\"")
        .append(entry.seq())
        .append("\" data-kind=\"")
        .append(escape(entry.kind()))
        .append("\" data-server=\"")
        .append(escape(entry.server()))
        .append("\"><time datetime=\"")
        .append(entry.at())
        .append("\">")
        .append(CLOCK.format(entry.at()))
        .append("</time> <b>")
        .append(escape(entry.kind()))
        .append("</b> ")
        .append(escape(entry.server()));
    if (!entry.session().isEmpty()) {
      line.append(" <span class=\"session\">#").append(escape(entry.session())).append("</span>");
    }
    if (!entry.detail().isEmpty()) {
      line.append(" <span class=\"detail\">").append(escape(entry.detail())).append("</span>");
    }
    return line.append("</li>").toString();
  }

  // ------------------------------------------------------------------------------------- sections

  /** Which configuration is in force, and since when (a reload changes both). */
  private static String config(JsonNode config) {
    if (config.isMissingNode()) {
      return "";
    }
    return "<p>Configuration <code>"
        + escape(config.path("fingerprint").asText())
        + "</code>, loaded "
        + escape(config.path("loadedAt").asText())
        + "</p>";
  }

  private static String cluster(JsonNode cluster) {
    if (cluster.isMissingNode()) {
      return "";
    }
    StringBuilder html = new StringBuilder("<h2>Cluster</h2><p>This node: <code>");
    html.append(escape(cluster.path("self").asText())).append("</code></p><ul class=\"members\">");
    for (JsonNode member : cluster.path("members")) {
      boolean reachable = member.path("reachable").asBoolean();
      html.append("<li><span class=\"badge ")
          .append(reachable ? "good" : "bad")
          .append("\">")
          .append(escape(member.path("status").asText()))
          .append(reachable ? "" : ", unreachable")
          .append("</span> <code>")
          .append(escape(member.path("address").asText()))
          .append("</code></li>");
    }
    html.append("</ul>");
    JsonNode nodes = cluster.path("nodes");
    if (nodes.isEmpty()) {
      return html.toString();
    }
    if (cluster.path("drift").asBoolean()) {
      html.append(
          "<p class=\"drift\"><span class=\"badge bad\">configuration drift</span> the members"
              + " run different configurations: reload the file where it is not the same</p>");
    }
    html.append(
        "<table class=\"nodes\"><thead><tr><th>node</th><th>view</th><th>configuration</th>"
            + "<th>loaded</th></tr></thead><tbody>");
    for (JsonNode node : nodes) {
      String state = node.path("state").asText();
      html.append("<tr class=\"node\" data-node=\"")
          .append(escape(node.path("node").asText()))
          .append("\" data-state=\"")
          .append(escape(state))
          .append("\"><td><code>")
          .append(escape(node.path("node").asText()))
          .append("</code></td><td><span class=\"badge ")
          .append("answered".equals(state) ? "good" : "bad")
          .append("\">")
          .append(escape(state))
          .append("</span></td><td><code>")
          .append(escape(node.path("fingerprint").asText("–")))
          .append("</code></td><td>")
          .append(escape(node.path("loadedAt").asText("–")))
          .append("</td></tr>");
    }
    return html.append("</tbody></table>").toString();
  }

  private static String servers(ObjectNode report) {
    // every configured server, with its keys (a server has one, or one per identity), then keys
    // of servers the calls do not list
    Map<String, List<JsonNode>> keysByServer = new TreeMap<>();
    for (JsonNode key : report.path("serverKeys")) {
      keysByServer.computeIfAbsent(key.path("server").asText(), s -> new ArrayList<>()).add(key);
    }
    List<String> names = new ArrayList<>();
    report.path("servers").fieldNames().forEachRemaining(names::add);
    keysByServer.keySet().stream().filter(name -> !names.contains(name)).forEach(names::add);
    if (names.isEmpty()) {
      return "<p class=\"empty\">No server is configured.</p>";
    }
    StringBuilder html = new StringBuilder();
    for (String name : names) {
      List<JsonNode> keys = keysByServer.getOrDefault(name, List.of());
      JsonNode calls = report.path("servers").path(name);
      html.append("<article class=\"server\" data-server=\"")
          .append(escape(name))
          .append("\"><header><h3>")
          .append(escape(name))
          .append("</h3>");
      if (keys.isEmpty()) {
        html.append(" <span class=\"badge idle\">no session</span>");
      }
      html.append("</header>");
      if (!calls.isMissingNode()) {
        html.append(stats(calls));
      }
      for (JsonNode key : keys) {
        html.append(key(name, key));
      }
      html.append("</article>");
    }
    return html.toString();
  }

  private static String stats(JsonNode calls) {
    double errorRate = calls.path("errorRate").asDouble();
    StringBuilder html = new StringBuilder("<div class=\"stats\">");
    html.append(stat("calls/s", number(calls.path("callsPerSecond").asDouble())))
        .append(stat("errors", percent(errorRate), errorRate > 0.05 ? "bad" : ""))
        .append(stat("p50", millis(calls.path("p50Millis").asDouble())))
        .append(stat("p99", millis(calls.path("p99Millis").asDouble())))
        .append(chart(calls))
        .append("</div>");
    return html.toString();
  }

  private static String stat(String label, String value) {
    return stat(label, value, "");
  }

  private static String stat(String label, String value, String tone) {
    return "<span class=\"stat "
        + tone
        + "\"><small>"
        + label
        + "</small> <b data-stat=\""
        + label
        + "\">"
        + value
        + "</b></span>";
  }

  /** Calls/s per slot as bars, p99 per slot as a line over them; each scaled to its own maximum. */
  private static String chart(JsonNode calls) {
    JsonNode rates = calls.path("callsPerSecondBySlot");
    JsonNode p99s = calls.path("p99MillisBySlot");
    int slots = rates.size();
    if (slots == 0) {
      return "";
    }
    double width = 4;
    double height = 32;
    double maxRate = 0;
    double maxP99 = 0;
    for (int i = 0; i < slots; i++) {
      maxRate = Math.max(maxRate, rates.get(i).asDouble());
      maxP99 = Math.max(maxP99, p99s.path(i).asDouble());
    }
    long window = calls.path("slotSeconds").asLong() * slots;
    StringBuilder svg = new StringBuilder();
    svg.append("<svg class=\"chart\" role=\"img\" viewBox=\"0 0 ")
        .append((int) (width * slots))
        .append(' ')
        .append((int) height)
        .append("\" preserveAspectRatio=\"none\"><title>calls/s (bars) and p99 (line), last ")
        .append(window / 60)
        .append(" min; peak ")
        .append(number(maxRate))
        .append(" calls/s, ")
        .append(millis(maxP99))
        .append("</title>");
    for (int i = 0; i < slots; i++) {
      double rate = rates.get(i).asDouble();
      if (rate > 0) {
        double bar = Math.max(1, rate / maxRate * (height - 2));
        svg.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
                i * width + 0.5,
                height - bar,
                width - 1,
                bar));
      }
    }
    if (maxP99 > 0) {
      StringBuilder points = new StringBuilder();
      for (int i = 0; i < slots; i++) {
        double p99 = p99s.path(i).asDouble();
        if (p99 > 0) {
          points.append(
              String.format(
                  Locale.ROOT,
                  "%.1f,%.1f ",
                  i * width + width / 2,
                  height - 1 - p99 / maxP99 * (height - 4)));
        }
      }
      svg.append("<polyline points=\"").append(points.toString().trim()).append("\"/>");
    }
    return svg.append("</svg>").toString();
  }

  private static String key(String server, JsonNode key) {
    String keyId = key.path("key").asText();
    String circuit = key.path("circuit").asText();
    StringBuilder html = new StringBuilder("<section class=\"key\" data-key=\"");
    html.append(escape(keyId))
        .append("\"><p class=\"meta\"><span class=\"badge circuit-")
        .append(slug(circuit))
        .append("\" data-circuit=\"")
        .append(escape(circuit))
        .append("\">circuit ")
        .append(escape(circuit))
        .append("</span> ")
        .append(escape(key.path("transport").asText()))
        .append(" · ")
        .append(escape(key.path("protocol").asText()))
        .append(" · key <code>")
        .append(escape(keyId))
        .append("</code> · ")
        .append(count(key.path("leases").asInt(), "lease"));
    String node = key.path("node").asText("");
    if (!node.isEmpty()) {
      html.append(" · node <code>").append(escape(node)).append("</code>");
    }
    html.append("</p>");
    JsonNode sessions = key.path("sessions");
    if (sessions.isEmpty()) {
      return html.append("<p class=\"empty\">No upstream session.</p></section>").toString();
    }
    html.append(
        "<table><thead><tr><th>session</th><th>state</th><th>pid</th><th>up</th>"
            + "<th>restarts</th><th>last loss</th><th>in flight</th><th>waiting</th>"
            + "<th>leases</th><th></th></tr></thead><tbody>");
    for (JsonNode session : sessions) {
      long id = session.path("id").asLong();
      String state = session.path("state").asText();
      String pid = session.has("pid") ? session.path("pid").asText() : "";
      html.append("<tr class=\"upstream\" data-session=\"")
          .append(id)
          .append("\" data-state=\"")
          .append(escape(state))
          .append("\" data-pid=\"")
          .append(pid)
          .append("\" data-restarts=\"")
          .append(session.path("restarts").asInt())
          .append("\"><td>")
          .append(id)
          .append("</td><td><span class=\"badge state-")
          .append(slug(state))
          .append("\">")
          .append(escape(state))
          .append("</span></td><td>")
          .append(pid.isEmpty() ? "–" : pid)
          .append("</td><td>")
          .append(
              session.has("connectedSeconds")
                  ? duration(session.path("connectedSeconds").asLong())
                  : "–")
          .append("</td><td>")
          .append(session.path("restarts").asInt())
          .append("</td><td class=\"detail\">")
          .append(escape(session.path("lastLoss").asText("")))
          .append("</td><td>")
          .append(session.path("inFlight").asInt())
          .append("</td><td>")
          .append(session.path("stashed").asInt())
          .append("</td><td>")
          .append(session.path("refCount").asInt())
          .append("</td><td>");
      if ("ready".equals(state)) {
        html.append(
            action(
                "/admin/servers/" + path(keyId) + "/sessions/" + id + "/restart" + onNode(node),
                "Restart",
                "Restart upstream session " + id + " of " + server + "?"));
      }
      html.append("</td></tr>");
    }
    return html.append("</tbody></table></section>").toString();
  }

  private static String sessions(JsonNode sessions) {
    if (sessions.isEmpty()) {
      return "<p class=\"empty\">No downstream session (2026-07-28 callers hold none).</p>";
    }
    // in a cluster every node lists the sessions it serves
    boolean clustered = sessions.get(0).has("node");
    Map<String, List<JsonNode>> byEndpoint = new TreeMap<>();
    for (JsonNode session : sessions) {
      byEndpoint
          .computeIfAbsent(session.path("endpoint").asText(), e -> new ArrayList<>())
          .add(session);
    }
    StringBuilder html = new StringBuilder();
    byEndpoint.forEach(
        (endpoint, list) -> {
          html.append("<h3><code>")
              .append(escape(endpoint))
              .append("</code> <small>")
              .append(count(list.size(), "session"))
              .append("</small></h3><table><thead><tr><th>session</th>")
              .append(clustered ? "<th>node</th>" : "")
              .append("<th>identity</th>")
              .append("<th>era</th><th>client</th><th>idle</th><th>leases</th><th></th>")
              .append("</tr></thead><tbody>");
          for (JsonNode session : list) {
            String id = session.path("id").asText();
            String node = session.path("node").asText("");
            JsonNode client = session.path("client");
            html.append("<tr class=\"downstream\" data-session=\"")
                .append(escape(id))
                .append("\" data-node=\"")
                .append(escape(node))
                .append("\"><td><code>")
                .append(escape(id))
                .append("</code></td><td>");
            if (clustered) {
              html.append("<code>").append(escape(node)).append("</code></td><td>");
            }
            html.append(escape(session.path("identity").asText()))
                .append("</td><td>")
                .append(escape(session.path("protocolVersion").asText("–")))
                .append("</td><td>")
                .append(escape(client.path("name").asText("–")))
                .append(' ')
                .append(escape(client.path("version").asText("")))
                .append("</td><td>")
                .append(duration(session.path("idleSeconds").asLong()))
                .append("</td><td>")
                .append(session.path("leases").asInt())
                .append("</td><td>")
                .append(
                    action(
                        "/admin/sessions/" + path(id) + "/close" + onNode(node),
                        "Close",
                        "Close downstream session " + id + "? Its client must initialize again."))
                .append("</td></tr>");
          }
          html.append("</tbody></table>");
        });
    return html.toString();
  }

  private static String action(String target, String label, String confirmation) {
    return "<button type=\"button\" data-action=\""
        + escape(target)
        + "\" data-confirm=\""
        + escape(confirmation)
        + "\">"
        + label
        + "</button>";
  }

  // ---------------------------------------------------------------------------------------- words

  /** The query that names the member an action is carried out on; none for a single node. */
  private static String onNode(String node) {
    return node.isEmpty() ? "" : "?node=" + path(node);
  }

  static String escape(String text) {
    StringBuilder escaped = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '<' -> escaped.append("&lt;");
        case '>' -> escaped.append("&gt;");
        case '&' -> escaped.append("&amp;");
        case '"' -> escaped.append("&quot;");
        case '\'' -> escaped.append("&#39;");
        default -> escaped.append(c);
      }
    }
    return escaped.toString();
  }

  private static String count(int count, String noun) {
    return count + " " + noun + (count == 1 ? "" : "s");
  }

  private static String slug(String word) {
    return word.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
  }

  private static String path(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String number(double value) {
    return value >= 100
        ? String.format(Locale.ROOT, "%.0f", value)
        : String.format(Locale.ROOT, "%.2f", value);
  }

  private static String percent(double rate) {
    return String.format(Locale.ROOT, "%.1f%%", rate * 100);
  }

  private static String millis(double millis) {
    if (millis == 0) {
      return "–";
    }
    return millis >= 1000
        ? String.format(Locale.ROOT, "%.1f s", millis / 1000)
        : String.format(Locale.ROOT, millis >= 10 ? "%.0f ms" : "%.1f ms", millis);
  }

  static String duration(long seconds) {
    if (seconds < 60) {
      return seconds + " s";
    }
    if (seconds < 3600) {
      return seconds / 60 + " min " + seconds % 60 + " s";
    }
    if (seconds < 86400) {
      return seconds / 3600 + " h " + seconds % 3600 / 60 + " min";
    }
    return seconds / 86400 + " d " + seconds % 86400 / 3600 + " h";
  }

  private static String resource(String name) {
    try (InputStream in = AdminPage.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha256(String inline) {
    try {
      return "sha256-"
          + Base64.getEncoder()
              .encodeToString(
                  MessageDigest.getInstance("SHA-256")
                      .digest(inline.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }
}
