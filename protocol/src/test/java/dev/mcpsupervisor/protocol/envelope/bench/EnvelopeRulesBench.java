package dev.mcpsupervisor.protocol.envelope.bench;

import dev.mcpsupervisor.protocol.envelope.EnvelopeRules;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.ParsedPayload;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Not a test: the CPU the edge validation ({@link EnvelopeRules}) costs per message, beside what
 * parsing the same body costs (the codec runs on every POST anyway). For each body: the thread's
 * CPU time per check, per parse and per parse + check, the median of several rounds after a warm-up
 * (no JMH: a loop timed with {@link ThreadMXBean#getCurrentThreadCpuTime()}).
 *
 * <pre>
 * mvn -o -q -B -pl protocol test-compile
 * mvn -o -q -B -pl protocol dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -cp protocol/target/test-classes:protocol/target/classes:$(cat /tmp/cp.txt) \
 *     dev.mcpsupervisor.protocol.envelope.bench.EnvelopeRulesBench [iterations=200000] [rounds=7]
 * </pre>
 */
public final class EnvelopeRulesBench {

  private static final String META_2026 =
      "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
          + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"bench\",\"version\":\"1.0\"},"
          + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}";

  private record Body(String name, String json, EnvelopeRules.Rules rules) {}

  private static final List<Body> BODIES =
      List.of(
          new Body(
              "2025 tools/call echo",
              "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                  + "\"arguments\":{\"message\":\"hello\"},\"_meta\":{\"progressToken\":\"p-42\"}}}",
              EnvelopeRules.Rules.of("2025-11-25")),
          new Body(
              "2025 tools/list",
              "{\"jsonrpc\":\"2.0\",\"id\":\"l-1\",\"method\":\"tools/list\",\"params\":{\"cursor\":\"c\"}}",
              EnvelopeRules.Rules.of("2025-11-25")),
          new Body(
              "2026 tools/call echo",
              "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                  + "\"arguments\":{\"message\":\"hello\"},"
                  + META_2026
                  + "}}",
              EnvelopeRules.Rules.of("2026-07-28")),
          new Body(
              "2026 retry with inputResponses",
              "{\"jsonrpc\":\"2.0\",\"id\":43,\"method\":\"tools/call\",\"params\":{\"name\":\"elicit\","
                  + "\"arguments\":{\"message\":\"ok?\"},\"inputResponses\":{\"elicitation-1\":"
                  + "{\"action\":\"accept\",\"content\":{\"answer\":\"yes\"}}},"
                  + "\"requestState\":\"eyJzIjoxfQ.c2ln\","
                  + META_2026
                  + "}}",
              EnvelopeRules.Rules.of("2026-07-28")),
          new Body(
              "2025 client answer",
              "{\"jsonrpc\":\"2.0\",\"id\":\"gw-7\",\"result\":{\"action\":\"accept\","
                  + "\"content\":{\"answer\":\"yes\"}}}",
              EnvelopeRules.Rules.of("2025-11-25")));

  private EnvelopeRulesBench() {}

  public static void main(String[] args) {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    System.out.printf(
        "%-32s %12s %12s %12s %10s%n", "body", "check ns", "parse ns", "both ns", "check/parse");
    for (Body body : BODIES) {
      byte[] bytes = body.json().getBytes(StandardCharsets.UTF_8);
      JsonRpcMessage message = ((ParsedPayload.Single) JsonRpcCodec.parse(bytes)).message();
      if (EnvelopeRules.check(message, body.rules()).isPresent()) {
        throw new IllegalStateException(body.name() + " is not well-formed");
      }
      // warm-up: each loop once, long enough for C2
      check(message, body.rules(), iterations);
      parse(bytes, iterations);
      both(bytes, body.rules(), iterations);
      List<Double> check = new ArrayList<>();
      List<Double> parse = new ArrayList<>();
      List<Double> both = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        long start = threads.getCurrentThreadCpuTime();
        check(message, body.rules(), iterations);
        long afterCheck = threads.getCurrentThreadCpuTime();
        parse(bytes, iterations);
        long afterParse = threads.getCurrentThreadCpuTime();
        both(bytes, body.rules(), iterations);
        long afterBoth = threads.getCurrentThreadCpuTime();
        check.add((afterCheck - start) / (double) iterations);
        parse.add((afterParse - afterCheck) / (double) iterations);
        both.add((afterBoth - afterParse) / (double) iterations);
      }
      double checkNs = median(check);
      double parseNs = median(parse);
      System.out.printf(
          "%-32s %12.0f %12.0f %12.0f %9.1f%%%n",
          body.name(), checkNs, parseNs, median(both), 100 * checkNs / parseNs);
    }
    System.out.println("sink " + sink);
  }

  /** Defeats dead-code elimination. */
  private static long sink;

  private static void check(JsonRpcMessage message, EnvelopeRules.Rules rules, int iterations) {
    long found = 0;
    for (int i = 0; i < iterations; i++) {
      if (EnvelopeRules.check(message, rules).isPresent()) {
        found++;
      }
    }
    sink += found;
  }

  private static void parse(byte[] bytes, int iterations) {
    long found = 0;
    for (int i = 0; i < iterations; i++) {
      if (JsonRpcCodec.parse(bytes) instanceof ParsedPayload.Single) {
        found++;
      }
    }
    sink += found;
  }

  private static void both(byte[] bytes, EnvelopeRules.Rules rules, int iterations) {
    long found = 0;
    for (int i = 0; i < iterations; i++) {
      if (JsonRpcCodec.parse(bytes) instanceof ParsedPayload.Single single
          && EnvelopeRules.check(single.message(), rules).isEmpty()) {
        found++;
      }
    }
    sink += found;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
