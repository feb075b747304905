package dev.mcpsupervisor.http.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@code /admin/sessions} document of a cluster: every member's own report merged into one.
 * Downstream sessions and server keys of all members, each with its {@code node}; per configured
 * server the calls of all members (rates summed, error rate over all their calls, p50 and p99 the
 * highest member's: a percentile of the whole cannot be had from the parts); and under {@code
 * cluster.nodes} each member with its configuration's fingerprint, or {@code unreachable} when it
 * did not answer. {@code cluster.drift} is true when the members that answered run different
 * configurations.
 */
public final class ClusterView {

  /** A member's state in the view: its report is in it, or it did not answer in time. */
  public static final String ANSWERED = "answered";

  public static final String UNREACHABLE = "unreachable";

  private ClusterView() {}

  /**
   * @param own this node's report (with its {@code cluster} block: the members as this node sees
   *     them)
   * @param others the other members' reports by node; null for one that did not answer
   */
  public static ObjectNode merge(String self, ObjectNode own, Map<String, ObjectNode> others) {
    ObjectNode view = own.deepCopy();
    Map<String, ObjectNode> reports = new TreeMap<>(others); // the others in a stable order
    Set<String> nodes = new LinkedHashSet<>();
    nodes.add(self);
    nodes.addAll(reports.keySet());
    // a member whose node desk is not listed cannot be asked: it shows as not answering
    own.path("cluster")
        .path("members")
        .forEach(member -> nodes.add(member.path("address").asText()));
    ObjectNode cluster = view.with("cluster");
    ArrayNode listed = cluster.putArray("nodes");
    ArrayNode sessions = view.withArray("downstreamSessions");
    ArrayNode keys = view.withArray("serverKeys");
    keys.forEach(key -> ((ObjectNode) key).put("node", self));
    List<JsonNode> calls = new ArrayList<>(List.of(own.path("servers")));
    Set<String> fingerprints = new HashSet<>();
    for (String node : nodes) {
      ObjectNode report = node.equals(self) ? own : reports.get(node);
      ObjectNode entry = listed.addObject().put("node", node);
      if (report == null) {
        entry.put("state", UNREACHABLE);
        continue;
      }
      entry.put("state", ANSWERED);
      JsonNode config = report.path("config");
      entry.put("fingerprint", config.path("fingerprint").asText(""));
      entry.put("loadedAt", config.path("loadedAt").asText(""));
      fingerprints.add(config.path("fingerprint").asText(""));
      if (report == own) {
        continue;
      }
      report.path("downstreamSessions").forEach(sessions::add);
      report
          .path("serverKeys")
          .forEach(key -> keys.add(((ObjectNode) key.deepCopy()).put("node", node)));
      calls.add(report.path("servers"));
    }
    cluster.put("drift", fingerprints.size() > 1);
    view.set("servers", calls(calls));
    return view;
  }

  /** Each server's calls over the members' {@code servers} blocks. */
  static ObjectNode calls(List<JsonNode> blocks) {
    ObjectNode merged = JsonRpcCodec.emptyObject();
    for (JsonNode block : blocks) {
      Iterator<Map.Entry<String, JsonNode>> servers = block.fields();
      while (servers.hasNext()) {
        Map.Entry<String, JsonNode> server = servers.next();
        JsonNode part = server.getValue();
        ObjectNode sum = (ObjectNode) merged.get(server.getKey());
        if (sum == null) {
          merged.set(server.getKey(), part.deepCopy());
          continue;
        }
        double rate = sum.path("callsPerSecond").asDouble();
        double more = part.path("callsPerSecond").asDouble();
        double errors =
            rate * sum.path("errorRate").asDouble() + more * part.path("errorRate").asDouble();
        sum.put("callsPerSecond", round(rate + more));
        sum.put("errorRate", rate + more == 0 ? 0 : round(errors / (rate + more)));
        sum.put(
            "p50Millis",
            Math.max(sum.path("p50Millis").asDouble(), part.path("p50Millis").asDouble()));
        sum.put(
            "p99Millis",
            Math.max(sum.path("p99Millis").asDouble(), part.path("p99Millis").asDouble()));
        slots(sum.withArray("callsPerSecondBySlot"), part.path("callsPerSecondBySlot"), true);
        slots(sum.withArray("p99MillisBySlot"), part.path("p99MillisBySlot"), false);
      }
    }
    return merged;
  }

  /** Slot by slot: summed, or the higher one. Members share the slot length and count. */
  private static void slots(ArrayNode into, JsonNode part, boolean sum) {
    for (int i = 0; i < Math.min(into.size(), part.size()); i++) {
      double a = into.get(i).asDouble();
      double b = part.get(i).asDouble();
      into.set(
          i,
          JsonRpcCodec.mapper().getNodeFactory().numberNode(sum ? round(a + b) : Math.max(a, b)));
    }
  }

  private static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
