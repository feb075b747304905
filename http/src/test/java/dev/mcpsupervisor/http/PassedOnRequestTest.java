package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.access.SessionIdSeal;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.cluster.NodeDesk;
import dev.mcpsupervisor.http.request.ClientRequests;
import dev.mcpsupervisor.http.session.SessionRecord;
import dev.mcpsupervisor.http.session.SessionReplicas;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeEdge;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request a desk passes on is watched wherever it goes: should the desk it went to go away before
 * serving it, the client is told to send it again, and does not wait for the gateway's last-resort
 * deadline (longer than any upstream call). A desk whose node stops is passed nothing, and what
 * still waits in it at its drain deadline is told to send it again then.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PassedOnRequestTest {

  private static final String SECRET = "the-cluster-secret-of-the-passed-on-request";
  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final Duration PHASE = Duration.ofSeconds(60);

  private final List<TestGateway> started = new ArrayList<>();

  @AfterEach
  void stop() {
    started.forEach(TestGateway::close);
  }

  /**
   * The session's id names no node of the cluster, so the desk that gets its request looks its
   * record up first, which names another node: the desk passes it there (its first pass comes after
   * a lookup). That desk goes away without serving it.
   */
  @Test
  void aRequestPassedOnAfterItsRecordsLookupIsToldToSendItAgainWhenItsDeskGoes() throws Exception {
    List<TestGateway> nodes = TestGateway.twoFixtureNodes(SECRET, PHASE);
    started.addAll(nodes);
    TestGateway here = nodes.get(0);
    TestGateway there = nodes.get(1);

    // the node there keeps what it is passed: its desk is a probe, which goes away unanswering
    TestProbe<NodeDesk.Command> desk = probeDesk(there, here);

    String id = goneNodesSession(here, there.supervisor.membership().selfNode());
    CompletableFuture<HttpResponse<String>> call =
        here.postAsync(FIXTURE, id, TestGateway.callTool(7, "echo", "{\"message\":\"lost?\"}"));
    NodeDesk.ToSession passed = desk.expectMessageClass(NodeDesk.SessionPost.class, PHASE);
    assertEquals(id, passed.sessionId());
    desk.stop();

    HttpResponse<String> answered = call.get(20, TimeUnit.SECONDS);
    assertEquals(200, answered.statusCode(), answered.body());
    JsonNode error = TestGateway.answer(answered).path("error");
    assertEquals(-32001, error.path("code").asInt(), answered.body());
    assertTrue(error.path("message").asText().contains("send it again"), answered.body());
  }

  /**
   * A node whose desk said it stops stays out of routing though the receptionist leaves its desk
   * out of a listing and lists it again (as it does while a node is unreachable): its session's
   * request is adopted by the node that stays, never passed to the stopping desk, which would keep
   * it.
   */
  @Test
  void aStoppingNodeIsPassedNothingAfterItsDeskLeftTheListingAndCameBack() throws Exception {
    List<TestGateway> nodes = TestGateway.twoFixtureNodes(SECRET, PHASE);
    started.addAll(nodes);
    TestGateway here = nodes.get(0);
    TestGateway there = nodes.get(1);
    TestProbe<NodeDesk.Command> desk = probeDesk(there, here);
    ActorSystem<?> thereSystem = there.supervisor.actorSystem();
    String thereNode = there.supervisor.membership().selfNode();

    localDesk(here).tell(new NodeDesk.Stopping(seenFrom(here, there, desk.getRef()), thereNode));
    thereSystem.receptionist().tell(Receptionist.deregister(NodeDesk.KEY, desk.getRef()));
    awaitListed(here, 1);
    thereSystem.receptionist().tell(Receptionist.register(NodeDesk.KEY, desk.getRef()));
    awaitListedInstead(here, desk.getRef());

    String id = goneNodesSession(here, thereNode);
    HttpResponse<String> answered =
        here.postAsync(FIXTURE, id, TestGateway.callTool(7, "echo", "{\"message\":\"kept?\"}"))
            .get(PHASE.toSeconds(), TimeUnit.SECONDS);
    assertEquals(200, answered.statusCode(), answered.body());
    assertEquals("kept?", TestGateway.text(TestGateway.answer(answered)), answered.body());
  }

  /**
   * A request that reached a stopping desk and waits there (for a node whose desk is not listed) is
   * told to send it again at the desk's drain deadline, not when its wait ends; one that reaches
   * the desk after that deadline waits no more.
   */
  @Test
  void whatWaitsInAStoppingDeskAtItsDrainDeadlineIsToldToSendItAgainThen() {
    List<TestGateway> nodes = TestGateway.twoFixtureNodes(SECRET, PHASE);
    started.addAll(nodes);
    TestGateway here = nodes.get(0);
    TestGateway there = nodes.get(1);
    ActorSystem<?> hereSystem = here.supervisor.actorSystem();
    hereSystem.receptionist().tell(Receptionist.deregister(NodeDesk.KEY, localDesk(here)));
    awaitListed(there, 1);
    ActorRef<NodeDesk.Command> thereDesk = localDesk(there);
    TestProbe<Done> done = TestProbe.create(there.supervisor.actorSystem());
    thereDesk.tell(new NodeDesk.Leave(PHASE, done.getRef()));
    done.expectMessage(PHASE, Done.getInstance());

    // a session of the node here, whose desk the stopping node does not list: it waits for it
    String ofHere =
        SessionIds.generate(
            new SecureRandom(),
            SessionIds.nodeTag(here.supervisor.membership().selfNode()),
            SessionIdSeal.ofSecret(SECRET));
    TestProbe<Exchange.Event> waiting = TestProbe.create(hereSystem);
    thereDesk.tell(post(ofHere, seenFrom(there, here, waiting.getRef())));
    thereDesk.tell(new NodeDesk.Abandon(done.getRef()));
    done.expectMessage(PHASE, Done.getInstance());
    waiting.expectMessage(PHASE, ExchangeEdge.Abandon.INSTANCE);

    TestProbe<Exchange.Event> late = TestProbe.create(hereSystem);
    thereDesk.tell(post(ofHere, seenFrom(there, here, late.getRef())));
    late.expectMessage(PHASE, ExchangeEdge.Abandon.INSTANCE);
  }

  /**
   * A session of a node that has left, whose record (published from {@code node}) says {@code
   * servedBy} serves it now.
   */
  private static String goneNodesSession(TestGateway node, String servedBy) {
    String id =
        SessionIds.generate(
            new SecureRandom(),
            SessionIds.nodeTag("pekko://gone@127.0.0.1:1#1"),
            SessionIdSeal.ofSecret(SECRET));
    SessionRecord record =
        new SessionRecord(
            id,
            FIXTURE,
            Identity.ANONYMOUS,
            new ClientRequests.Client(
                "2025-06-18", JsonRpcCodec.emptyObject(), "test-client", "1.0", null),
            Map.of(),
            null,
            Map.of(),
            servedBy);
    ActorRef<SessionReplicas.Command> replicas =
        node.supervisor
            .actorSystem()
            .systemActorOf(
                SessionReplicas.create(node.supervisor.membership(), () -> Duration.ofHours(1)),
                "test-session-replicas",
                Props.empty());
    replicas.tell(new SessionReplicas.Publish(record));

    return id;
  }

  /**
   * A POST of {@code sessionId} as another node's desk passes it on, its events to {@code edge}.
   */
  private static NodeDesk.SessionPost post(String sessionId, ActorRef<Exchange.Event> edge) {
    return new NodeDesk.SessionPost(
        sessionId, FIXTURE, Identity.ANONYMOUS, List.of(), List.of(), false, false, edge, null, 1);
  }

  /**
   * {@code actor}, of the node {@code of}, as {@code node} knows it (as a message from there would
   * carry it).
   */
  private static <T> ActorRef<T> seenFrom(TestGateway node, TestGateway of, ActorRef<T> actor) {
    String path = ActorRefResolver.get(of.supervisor.actorSystem()).toSerializationFormat(actor);
    return ActorRefResolver.get(node.supervisor.actorSystem()).resolveActorRef(path);
  }

  /** A probe registered as {@code node}'s desk instead of its own, once {@code other} lists it. */
  private static TestProbe<NodeDesk.Command> probeDesk(TestGateway node, TestGateway other) {
    ActorSystem<?> system = node.supervisor.actorSystem();
    TestProbe<NodeDesk.Command> desk = TestProbe.create(system);
    system.receptionist().tell(Receptionist.deregister(NodeDesk.KEY, localDesk(node)));
    system.receptionist().tell(Receptionist.register(NodeDesk.KEY, desk.getRef()));
    awaitListedInstead(other, desk.getRef());
    return desk;
  }

  /** The node's own desk, as its receptionist lists it. */
  private static ActorRef<NodeDesk.Command> localDesk(TestGateway node) {
    return listed(node).stream()
        .filter(desk -> desk.path().address().hasLocalScope())
        .findFirst()
        .orElseThrow();
  }

  private static Set<ActorRef<NodeDesk.Command>> listed(TestGateway node) {
    TestProbe<Receptionist.Listing> probe = TestProbe.create(node.supervisor.actorSystem());
    node.supervisor
        .actorSystem()
        .receptionist()
        .tell(Receptionist.find(NodeDesk.KEY, probe.getRef()));
    return probe.receiveMessage().getServiceInstances(NodeDesk.KEY);
  }

  /** Until {@code node} lists {@code count} desks. */
  private static void awaitListed(TestGateway node, int count) {
    TestProbe<Void> waiting = TestProbe.create(node.supervisor.actorSystem());
    waiting.awaitAssert(
        PHASE,
        () -> {
          assertEquals(count, listed(node).size());
          return null;
        });
  }

  /** Until {@code node} lists its own desk and {@code desk} (the other node's, instead of its). */
  private static void awaitListedInstead(TestGateway node, ActorRef<NodeDesk.Command> desk) {
    TestProbe<Void> waiting = TestProbe.create(node.supervisor.actorSystem());
    waiting.awaitAssert(
        PHASE,
        () -> {
          Set<ActorRef<NodeDesk.Command>> listed = listed(node);
          assertEquals(2, listed.size(), listed.toString());
          assertTrue(
              listed.stream().anyMatch(each -> each.path().name().equals(desk.path().name())),
              listed.toString());
          return null;
        });
  }
}
