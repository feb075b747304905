package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.AddressFromURIString;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Down;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Three gateway nodes, 100 2025-era sessions initialized through the first and called through the
 * others round-robin, while the first is downed (as the split-brain resolver downs a crashed node)
 * and then each of the others is restarted in turn (SIGTERM-like: drained, then left). Every
 * session goes on with no new initialize: its protocol state (here, the log level each session set:
 * half of them take warnings only, and no info log may ever reach those) is replicated, and the
 * node that adopts it serves it as the first did. Only calls in flight on the downed node may fail,
 * with the retryable "node gone" answer; the restarts fail none. A 2026-07-28 call whose {@code
 * input_required} round is parked on the second node when it stops is answered through the third
 * meanwhile, and completes on the second within its drain.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 900, unit = TimeUnit.SECONDS)
class SessionFailoverTest {

  private static final String SECRET = "the-cluster-secret-of-the-failover-nodes";
  private static final String FIXTURE = "/servers/fixture/mcp";

  /** A server of its own for the 2026-07-28 round: no other client shares its session. */
  private static final String ASKER = "/servers/asker/mcp";

  private static final int SESSIONS = 100;

  /**
   * What a call that waits for an upstream server's cold start may take. The node that adopts a
   * stopping node's sessions may be the one that has just restarted, its servers not started yet,
   * and on this 2-core machine under other builds (load average 46) a fixture's first answer took
   * 22-35 s. So the restarted node's drain deadline (the requests it passes on are answered by a
   * node that starts its upstream server for them), the servers' request timeout and the client's
   * wait are this long: bounds, not waits (idle, nothing waits longer than with 10 s).
   */
  private static final Duration COLD_START_BOUND = Duration.ofSeconds(90);

  private static final Duration DRAIN = COLD_START_BOUND;

  /** How long a phase may take: a cold start, and the calls after it. */
  private static final Duration PHASE = COLD_START_BOUND.plusSeconds(60);

  /**
   * The nodes' failure detector tolerates the pauses of a starved JVM (the three nodes share one):
   * a node that only was not scheduled in time is not taken for unreachable, nor downed by the
   * split-brain resolver while it serves. The test downs its lost node itself.
   */
  private static final String STARVED_NODE_SETTINGS =
      TestGateway.CLUSTER_NODE_SETTINGS
          + "pekko.cluster.failure-detector.acceptable-heartbeat-pause = 20s\n";

  private final List<TestGateway> started = new ArrayList<>();
  private final ExecutorService callers = Executors.newFixedThreadPool(SESSIONS);

  /** Waits for the nodes from outside them: they come and go. */
  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    callers.shutdownNow();
    started.forEach(SessionFailoverTest::closeQuietly);
    testKit.shutdownTestKit();
  }

  @Test
  void sessionsGoOnThroughANodesLossAndARollingRestart() throws Exception {
    long childrenBefore = aliveChildren();
    int seedPort = TestGateway.freePort();
    TestGateway first = node(seedPort, seedPort);
    TestGateway second = node(TestGateway.freePort(), seedPort);
    TestGateway third = node(TestGateway.freePort(), seedPort);
    TestGateway.awaitDesks(List.of(first, second, third), PHASE);

    String[] ids = new String[SESSIONS];
    for (int n = 0; n < SESSIONS; n++) {
      ids[n] = first.initialize(FIXTURE);
      // odd sessions hear info logs, even ones only warnings: state each session keeps
      HttpResponse<String> level =
          (n % 2 == 0 ? second : third)
              .post(
                  FIXTURE,
                  ids[n],
                  TestGateway.request(
                      1,
                      "logging/setLevel",
                      "{\"level\":\"" + (n % 2 == 0 ? "warning" : "debug") + "\"}"));
      assertEquals(200, level.statusCode(), level.body());
    }

    Load load = new Load(ids, List.of(second, third));
    load.start();
    load.awaitEachMore(2, "before any node goes");

    // the node that created every session is downed under load: its sessions move on
    Address downed = AddressFromURIString.parse(first.supervisor.membership().selfAddress());
    load.phase = "first downed";
    Load.Mark beforeDown = load.mark();
    Cluster.get(second.supervisor.actorSystem()).manager().tell(new Down(downed));
    load.awaitEachMore(beforeDown, 3, "after the first node was downed");
    int failedAtDown = load.failures.size();
    assertTrue(failedAtDown <= SESSIONS, "at most the calls in flight fail: " + load.failures);
    load.failures.forEach(
        failure ->
            assertTrue(
                failure.contains("send it again") || failure.contains("-32008"),
                "a lost call is told to send again, never that its session is unknown: "
                    + failure));

    // a rolling restart: each node in turn drains, leaves and comes back on a new port; a
    // 2026-07-28 call's input_required round is parked on the second when it stops, and its
    // client answers through the third meanwhile: the call completes on the second
    StatelessClient asked = new StatelessClient(second, "{\"elicitation\":{}}");
    String arguments = "{\"message\":\"Still there?\"}";
    HttpResponse<String> firstRound =
        second.post(
            ASKER,
            null,
            asked.toolCall(1, "elicit", arguments, "", ""),
            StatelessClient.headers("tools/call", "elicit"));
    JsonNode round = TestGateway.answer(firstRound).path("result");
    assertEquals("input_required", round.path("resultType").asText(), firstRound.body());
    String retry =
        asked.toolCall(
            2,
            "elicit",
            arguments,
            ",\"inputResponses\":{\""
                + round.path("inputRequests").fieldNames().next()
                + "\":{\"action\":\"accept\",\"content\":{\"answer\":\"across\"}}},"
                + "\"requestState\":\""
                + round.path("requestState").asText()
                + "\"",
            "");
    AtomicReference<HttpResponse<String>> retried = new AtomicReference<>();
    TestGateway secondAgain =
        restart(
            second,
            third,
            load,
            List.of(third),
            () ->
                retried.set(
                    third.post(
                        ASKER, null, retry, StatelessClient.headers("tools/call", "elicit"))));
    assertEquals(200, retried.get().statusCode(), retried.get().body());
    assertEquals(
        "accept:{\"answer\":\"across\"}",
        TestGateway.text(TestGateway.answer(retried.get())),
        "the round's call completed on the stopping node: " + retried.get().body());
    load.servedBy(List.of(secondAgain, third));
    load.phase = "second back";
    load.awaitEachMore(2, "after the second node came back");
    TestGateway thirdAgain = restart(third, secondAgain, load, List.of(secondAgain), () -> {});
    load.servedBy(List.of(secondAgain, thirdAgain));
    load.phase = "third back";
    load.awaitEachMore(3, "after the third node came back");
    load.stop();

    assertEquals(
        failedAtDown,
        load.failures.size(),
        "no call fails while nodes restart: "
            + load.failures.subList(failedAtDown, load.failures.size()));
    assertEquals(List.of(), load.wrong, "every answer and log went to the session that asked");

    TestProbe<Object> probe = testKit.createTestProbe();
    started.forEach(SessionFailoverTest::closeQuietly);
    probe.awaitAssert(
        Duration.ofSeconds(10),
        () -> {
          assertEquals(childrenBefore, aliveChildren(), "no fixture process outlives its node");
          return null;
        });
  }

  /**
   * Restarts {@code node}: the load goes to {@code during} meanwhile (as a load balancer stops
   * sending to a node whose readiness says stopping), the node drains and leaves ({@code
   * whileStopping} runs once its readiness says so), and a new node on a new port joins through
   * {@code seed}.
   */
  private TestGateway restart(
      TestGateway node,
      TestGateway seed,
      Load load,
      List<TestGateway> during,
      Runnable whileStopping) {
    load.servedBy(during);
    load.phase = "restarting " + node.base;
    CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> node.close(DRAIN));
    load.probe.awaitAssert(
        PHASE,
        () -> {
          assertEquals(503, node.get("/readyz").statusCode(), "stopping");
          return null;
        });
    whileStopping.run();
    closed.join();
    load.phase = "starting again after " + node.base;
    int seedPort =
        AddressFromURIString.parse(seed.supervisor.membership().selfAddress()).getPort().get();
    TestGateway again = node(TestGateway.freePort(), seedPort);
    List<TestGateway> members = new ArrayList<>(during);
    members.add(again);
    TestGateway.awaitDesks(members, PHASE);
    return again;
  }

  /** The load: each session calls {@code log} again and again through the nodes it is given. */
  private final class Load {
    final String[] ids;
    final AtomicReference<List<TestGateway>> nodes;
    final AtomicIntegerArray ok;
    final Queue<String> failuresQueue = new ConcurrentLinkedQueue<>();
    final List<String> failures = new ArrayList<>();
    final List<String> wrong = new ArrayList<>();
    final AtomicBoolean running = new AtomicBoolean(true);
    final List<CompletableFuture<Void>> loops = new ArrayList<>();
    final Queue<String> wrongQueue = new ConcurrentLinkedQueue<>();
    final AtomicInteger turn = new AtomicInteger();

    /** What the test is doing now, for the failures' messages. */
    volatile String phase = "steady";

    final TestProbe<Object> probe;

    Load(String[] ids, List<TestGateway> nodes) {
      this.probe = testKit.createTestProbe();
      this.ids = ids;
      this.nodes = new AtomicReference<>(List.copyOf(nodes));
      this.ok = new AtomicIntegerArray(ids.length);
    }

    void start() {
      for (int n = 0; n < ids.length; n++) {
        int session = n;
        loops.add(CompletableFuture.runAsync(() -> calls(session), callers));
      }
    }

    void servedBy(List<TestGateway> now) {
      nodes.set(List.copyOf(now));
    }

    private void calls(int n) {
      for (int call = 0; running.get(); call++) {
        List<TestGateway> now = nodes.get();
        TestGateway node = now.get(Math.floorMod(n + turn.incrementAndGet(), now.size()));
        String message = "s" + n + "-" + call;
        HttpResponse<String> answered;
        try {
          // the client waits longer than the server's request timeout: its answer, not the
          // client's own timeout, says what happened to a call that waited for a cold start
          answered =
              node.send(
                  node.postRequest(
                          FIXTURE,
                          ids[n],
                          TestGateway.callTool(
                              10 + call,
                              "log",
                              "{\"level\":\"info\",\"message\":\"" + message + "\"}"))
                      .timeout(COLD_START_BOUND.plusSeconds(10))
                      .build());
        } catch (RuntimeException e) { // the node stopped listening under the call
          failuresQueue.add(
              Instant.now() + " [" + phase + "] session " + n + " via " + node.base + ": " + e);
          continue;
        }
        if (answered.statusCode() != 200) {
          failuresQueue.add(
              Instant.now()
                  + " session "
                  + n
                  + " via "
                  + node.base
                  + ": "
                  + answered.statusCode()
                  + " "
                  + answered.body());
          continue;
        }
        List<JsonNode> messages = TestGateway.messages(answered);
        if (messages.isEmpty()) { // a stream that ended without its answer
          wrongQueue.add("[" + phase + "] session " + n + " call " + call + ": " + answered.body());
          continue;
        }
        JsonNode result = messages.get(messages.size() - 1);
        if (result.has("error")) { // lost in flight with the node that served it
          failuresQueue.add(
              Instant.now()
                  + " ["
                  + phase
                  + "] session "
                  + n
                  + " via "
                  + node.base
                  + ": "
                  + result);
          continue;
        }
        // a stdio server's logs name no call: they reach every session at its own level (when
        // they reach a session's POST rather than its GET stream is a race with the answer)
        boolean levelKept =
            n % 2 != 0
                || messages.stream()
                    .noneMatch(m -> "notifications/message".equals(m.path("method").asText()));
        if (result.path("id").asInt() != 10 + call
            || !"logged".equals(TestGateway.text(result))
            || !levelKept) {
          wrongQueue.add("[" + phase + "] session " + n + " call " + call + ": " + answered.body());
        }
        ok.incrementAndGet(n);
      }
    }

    /** How many calls each session has had answered so far. */
    record Mark(int[] answered) {}

    Mark mark() {
      int[] answered = new int[ids.length];
      for (int n = 0; n < ids.length; n++) {
        answered[n] = ok.get(n);
      }
      return new Mark(answered);
    }

    /** Waits until every session has had {@code more} calls answered from now. */
    void awaitEachMore(int more, String when) {
      awaitEachMore(mark(), more, when);
    }

    /**
     * Waits until every session has had {@code more} calls answered since {@code since}: a session
     * calls one at a time, so its call in flight then has been answered or has failed, and its
     * failure (queued before the answers that follow it) is among {@link #failures}.
     */
    void awaitEachMore(Mark since, int more, String when) {
      probe.awaitAssert(
          PHASE,
          () -> {
            Mark now = mark(); // before the failures are drained, so none before these is left
            drain();
            for (int n = 0; n < ids.length; n++) {
              assertTrue(
                  now.answered()[n] >= since.answered()[n] + more,
                  "every session answers "
                      + when
                      + "; session "
                      + n
                      + " had "
                      + (now.answered()[n] - since.answered()[n])
                      + " of "
                      + more
                      + "; failures: "
                      + failures);
            }
            return null;
          });
    }

    void stop() throws Exception {
      running.set(false);
      CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      drain();
    }

    private void drain() {
      for (String failure; (failure = failuresQueue.poll()) != null; ) {
        failures.add(failure);
      }
      for (String each; (each = wrongQueue.poll()) != null; ) {
        wrong.add(each);
      }
    }
  }

  private TestGateway node(int port, int seedPort) {
    TestGateway node =
        TestGateway.start(
            STARVED_NODE_SETTINGS,
            TestGateway.clusterNode(
                port, new ClusterConfig.SeedNode("127.0.0.1", seedPort), SECRET),
            coldStartBounded(TestGateway.stdioFixture("fixture"), Set.of()),
            coldStartBounded(TestGateway.stdioFixture("asker"), Set.of("elicit")));
    started.add(node);
    return node;
  }

  /** {@code fixture} with {@link #COLD_START_BOUND} as its request timeout, {@code interactive}. */
  private static ServerConfig coldStartBounded(ServerConfig fixture, Set<String> interactive) {
    return fixture.toBuilder()
        .requestTimeout(COLD_START_BOUND)
        .interactiveTools(interactive)
        .build();
  }

  private static long aliveChildren() {
    return ProcessHandle.current().children().filter(ProcessHandle::isAlive).count();
  }

  private static void closeQuietly(TestGateway node) {
    try {
      node.close();
    } catch (RuntimeException alreadyGone) {
      // a downed node's system is terminated already; its children went with it
    }
  }
}
