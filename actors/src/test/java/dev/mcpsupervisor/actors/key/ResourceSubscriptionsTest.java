package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.key.ResourceSubscriptions.Answer;
import dev.mcpsupervisor.actors.key.ResourceSubscriptions.Send;
import dev.mcpsupervisor.actors.key.ResourceSubscriptions.Step;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The refcount of resource subscriptions per session and URI, without actors. */
class ResourceSubscriptionsTest {

  private static final String A = "fixture://watched/a";
  private static final String B = "fixture://watched/b";

  private final ResourceSubscriptions subscriptions = new ResourceSubscriptions();
  private long nextCallId = 1;

  private UpstreamCall call(String context, String method, String uri) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("uri", uri);
    return UpstreamCall.leased(
        context, "fixture", nextCallId++, method, params, Duration.ofSeconds(5), null, null);
  }

  private List<Step> subscribe(String context, long session, String uri) {
    return subscriptions.subscribe(call(context, McpMethods.RESOURCES_SUBSCRIBE, uri), session);
  }

  private List<Step> unsubscribe(String context, String uri) {
    return subscriptions.unsubscribe(call(context, McpMethods.RESOURCES_UNSUBSCRIBE, uri));
  }

  private static List<Send> sends(List<Step> steps) {
    return steps.stream().filter(Send.class::isInstance).map(Send.class::cast).toList();
  }

  private static List<Answer> answers(List<Step> steps) {
    return steps.stream().filter(Answer.class::isInstance).map(Answer.class::cast).toList();
  }

  private static Send onlySend(List<Step> steps, String method) {
    List<Send> sends = sends(steps);
    assertEquals(1, sends.size(), "one upstream call: " + steps);
    assertEquals(method, sends.get(0).method());
    return sends.get(0);
  }

  private static JsonRpcResponse ok(Send send) {
    return JsonRpcResponse.success(LongNode.valueOf(send.callId()), JsonRpcCodec.emptyObject());
  }

  private static JsonRpcResponse refused(Send send) {
    return JsonRpcResponse.failure(
        LongNode.valueOf(send.callId()),
        new JsonRpcError(JsonRpcErrorCodes.METHOD_NOT_FOUND, "no subscriptions here"));
  }

  /** Every answer is a success carrying its own caller's id. */
  private static void assertAllSucceeded(List<Answer> answers) {
    answers.forEach(
        answer -> {
          assertFalse(answer.response().isError(), answer.toString());
          assertEquals(answer.call().callId(), answer.response().id().asLong());
        });
  }

  @Test
  void hundredsOfContextsSubscribingToOneUriCostOneUpstreamSubscribe() {
    List<Step> steps = new ArrayList<>();
    IntStream.range(0, 300).forEach(i -> steps.addAll(subscribe("c" + i, 1, A)));
    Send subscribe = onlySend(steps, McpMethods.RESOURCES_SUBSCRIBE);
    assertEquals(A, subscribe.uri());
    assertEquals(1, subscribe.sessionId());
    assertTrue(subscribe.callId() < 0, "never a caller's id");
    assertTrue(answers(steps).isEmpty(), "all wait for the upstream's answer");

    List<Step> answered = subscriptions.answered(subscribe.callId(), ok(subscribe));
    assertEquals(300, answers(answered).size());
    assertAllSucceeded(answers(answered));
    assertTrue(sends(answered).isEmpty());
    assertEquals(300, subscriptions.subscribers(1, A).size());

    List<Step> late = subscribe("late", 1, A);
    assertTrue(sends(late).isEmpty(), "subscribed already: no upstream call");
    assertAllSucceeded(answers(late));
    assertEquals(1, answers(late).size());
  }

  @Test
  void theUpstreamHearsUnsubscribeOnlyWhenTheLastContextLeaves() {
    Send subscribe = onlySend(subscribe("a", 1, A), McpMethods.RESOURCES_SUBSCRIBE);
    subscribe("b", 1, A);
    subscriptions.answered(subscribe.callId(), ok(subscribe));

    List<Step> first = unsubscribe("a", A);
    assertTrue(sends(first).isEmpty(), "b still wants it");
    assertAllSucceeded(answers(first));
    assertEquals(Set.of("b"), subscriptions.subscribers(1, A));

    Send unsubscribe = onlySend(subscriptions.released("b"), McpMethods.RESOURCES_UNSUBSCRIBE);
    assertEquals(A, unsubscribe.uri());
    assertFalse(subscriptions.isEmpty(), "the unsubscribe is under way");
    assertTrue(subscriptions.answered(unsubscribe.callId(), ok(unsubscribe)).isEmpty());
    assertTrue(subscriptions.isEmpty(), "nothing is left behind");
  }

  @Test
  void aSubscribeWhileTheUnsubscribeIsUnderWayWaitsAndThenSubscribesAgain() {
    Send subscribe = onlySend(subscribe("a", 1, A), McpMethods.RESOURCES_SUBSCRIBE);
    subscriptions.answered(subscribe.callId(), ok(subscribe));
    Send unsubscribe = onlySend(unsubscribe("a", A), McpMethods.RESOURCES_UNSUBSCRIBE);

    List<Step> again = subscribe("b", 1, A);
    assertTrue(again.isEmpty(), "one call per URI and session under way at a time: " + again);

    List<Step> unsubscribed = subscriptions.answered(unsubscribe.callId(), ok(unsubscribe));
    Send resubscribe = onlySend(unsubscribed, McpMethods.RESOURCES_SUBSCRIBE);
    List<Step> answered = subscriptions.answered(resubscribe.callId(), ok(resubscribe));
    assertEquals(1, answers(answered).size());
    assertAllSucceeded(answers(answered));
    assertEquals(Set.of("b"), subscriptions.subscribers(1, A));
  }

  @Test
  void aRefusalReachesEveryWaiterUnderItsOwnIdAndLeavesNothing() {
    List<Step> steps = new ArrayList<>(subscribe("a", 1, A));
    steps.addAll(subscribe("b", 1, A));
    Send subscribe = onlySend(steps, McpMethods.RESOURCES_SUBSCRIBE);
    List<Answer> refusals = answers(subscriptions.answered(subscribe.callId(), refused(subscribe)));
    assertEquals(2, refusals.size());
    refusals.forEach(
        refusal -> {
          assertTrue(refusal.response().isError());
          assertEquals(refusal.call().callId(), refusal.response().id().asLong());
        });
    assertTrue(subscriptions.isEmpty());
  }

  @Test
  void contextsThatLeaveBeforeTheSubscribeIsAnsweredLeaveItToBeUndone() {
    Send subscribe = onlySend(subscribe("a", 1, A), McpMethods.RESOURCES_SUBSCRIBE);
    List<Step> left = subscriptions.released("a");
    assertEquals(1, answers(left).size(), "the waiting subscribe is answered");
    assertTrue(sends(left).isEmpty(), "the subscribe is still under way");
    Send unsubscribe =
        onlySend(
            subscriptions.answered(subscribe.callId(), ok(subscribe)),
            McpMethods.RESOURCES_UNSUBSCRIBE);
    subscriptions.answered(unsubscribe.callId(), ok(unsubscribe));
    assertTrue(subscriptions.isEmpty());
  }

  @Test
  void aReconnectedSessionIsSubscribedAgainToWhatIsStillWanted() {
    Send a = onlySend(subscribe("x", 1, A), McpMethods.RESOURCES_SUBSCRIBE);
    Send b = onlySend(subscribe("y", 1, B), McpMethods.RESOURCES_SUBSCRIBE);
    subscriptions.answered(a.callId(), ok(a));
    subscriptions.answered(b.callId(), ok(b));

    subscriptions.connectionLost(1);
    List<Step> leftWhileDown = subscriptions.released("y");
    assertTrue(sends(leftWhileDown).isEmpty(), "the new connection never had B: nothing to undo");
    assertTrue(subscribe("z", 1, A).isEmpty(), "waits for the connection");

    List<Step> back = subscriptions.reconnected(1);
    Send resubscribe = onlySend(back, McpMethods.RESOURCES_SUBSCRIBE);
    assertEquals(A, resubscribe.uri());
    List<Step> answered = subscriptions.answered(resubscribe.callId(), ok(resubscribe));
    assertEquals(1, answers(answered).size(), "z's subscribe");
    assertEquals(Set.of("x", "z"), subscriptions.subscribers(1, A));
    assertTrue(subscriptions.reconnected(1).isEmpty(), "ready again without a loss: nothing owed");
  }

  @Test
  void aRenewalLostWithTheConnectionIsTriedOnceMoreWhenItIsBack() {
    Send renewal = renewalAfterAReconnect();
    subscriptions.connectionLost(1);
    assertTrue(
        subscriptions.answered(renewal.callId(), refused(renewal)).isEmpty(),
        "the connection is down: not now");
    onlySend(subscriptions.reconnected(1), McpMethods.RESOURCES_SUBSCRIBE);
  }

  @Test
  void aRenewalTheUpstreamRefusesIsNotRepeated() {
    Send renewal = renewalAfterAReconnect();
    assertTrue(subscriptions.answered(renewal.callId(), refused(renewal)).isEmpty());
    assertTrue(subscriptions.reconnected(1).isEmpty());
  }

  /** x subscribed to A on session 1, whose connection was lost and is back: the renewal. */
  private Send renewalAfterAReconnect() {
    Send first = onlySend(subscribe("x", 1, A), McpMethods.RESOURCES_SUBSCRIBE);
    subscriptions.answered(first.callId(), ok(first));
    subscriptions.connectionLost(1);
    return onlySend(subscriptions.reconnected(1), McpMethods.RESOURCES_SUBSCRIBE);
  }

  @Test
  void eachSessionHoldsItsOwnSubscription() {
    Send one = onlySend(subscribe("a", 1, A), McpMethods.RESOURCES_SUBSCRIBE);
    Send two = onlySend(subscribe("b", 2, A), McpMethods.RESOURCES_SUBSCRIBE);
    assertEquals(Set.of(1L, 2L), new HashSet<>(List.of(one.sessionId(), two.sessionId())));
    subscriptions.answered(one.callId(), ok(one));
    subscriptions.answered(two.callId(), ok(two));
    Send unsubscribe = onlySend(unsubscribe("a", A), McpMethods.RESOURCES_UNSUBSCRIBE);
    assertEquals(1, unsubscribe.sessionId());
    assertEquals(Set.of("b"), subscriptions.subscribers(2, A));
  }

  @Test
  void aSessionThatGoesAnswersItsWaitersAndIsForgotten() {
    Send subscribe = onlySend(subscribe("a", 1, A), McpMethods.RESOURCES_SUBSCRIBE);
    List<Answer> answers =
        answers(
            subscriptions.sessionGone(
                1, () -> SupervisorErrors.unavailable("fixture", "session closed")));
    assertEquals(1, answers.size());
    assertTrue(answers.get(0).response().isError());
    assertTrue(subscriptions.answered(subscribe.callId(), ok(subscribe)).isEmpty(), "late answer");
    assertTrue(subscriptions.isEmpty());
    assertTrue(subscriptions.released("a").isEmpty());
  }

  @Test
  void unsubscribingFromWhatWasNeverSubscribedIsAnsweredAtOnce() {
    List<Step> steps = unsubscribe("a", A);
    assertTrue(sends(steps).isEmpty());
    assertAllSucceeded(answers(steps));
    assertTrue(subscriptions.isEmpty());
  }

  @Test
  void aSubscribeWithoutAUriIsRefused() {
    UpstreamCall call =
        UpstreamCall.leased(
            "a",
            "fixture",
            nextCallId++,
            McpMethods.RESOURCES_SUBSCRIBE,
            null,
            Duration.ofSeconds(5),
            null,
            null);
    List<Answer> answers = answers(subscriptions.subscribe(call, 1));
    assertEquals(JsonRpcErrorCodes.INVALID_PARAMS, answers.get(0).response().error().code());
    assertTrue(subscriptions.isEmpty());
  }
}
