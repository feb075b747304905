package dev.mcpsupervisor.actors.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.delivery.CallerKind;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.session.ServerRequestAttribution.Owner;
import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Whose a server-to-client request is, without actors: every case of the rule. */
class ServerRequestAttributionTest {

  private final PendingRequests pending = new PendingRequests();
  private final ProgressTokens progressTokens = new ProgressTokens(7);
  private final LeasedContexts<String> contexts = new LeasedContexts<>();
  private final Set<String> answering = new HashSet<>();
  private final ServerRequestAttribution attribution =
      new ServerRequestAttribution(
          pending, progressTokens, contexts, call -> answering.contains(call.call().context()));
  private long nextCallId = 1;

  // ------------------------------------------------------------------------------------------ tied

  @Test
  void aRequestOnACallsResponseStreamIsThatCallsWhoeverElseIsInFlight() {
    TrackedCall first = send("a", null);
    send("b", null);
    Owner owner = attribution.ownerOf(sampling(null), LongNode.valueOf(first.upstreamId));
    assertSame(first, owner.call());
    assertEquals("a", owner.context());
  }

  @Test
  void aRequestNamingOurRequestIdInItsMetaIsThatCalls() {
    TrackedCall first = send("a", null);
    TrackedCall second = send("b", null);
    ObjectNode meta = JsonRpcCodec.emptyObject();
    meta.put(ServerRequestAttribution.RELATED_REQUEST, first.upstreamId);
    assertSame(first, attribution.ownerOf(sampling(meta), null).call());
    meta.put(ServerRequestAttribution.RELATED_REQUEST, String.valueOf(second.upstreamId));
    assertSame(second, attribution.ownerOf(sampling(meta), null).call(), "as a string too");
  }

  @Test
  void aRequestCarryingTheProgressTokenTheSessionGaveACallIsThatCalls() {
    TrackedCall first = send("a", "caller-token");
    send("b", "caller-token"); // the same caller token: the session's tokens still differ
    ObjectNode meta = JsonRpcCodec.emptyObject().put("progressToken", first.upstreamProgressToken);
    assertSame(first, attribution.ownerOf(sampling(meta), null).call());
  }

  @Test
  void aMarkerNamingNoCallInFlightLeavesTheRequestUntagged() {
    send("a", null);
    send("b", null);
    ObjectNode meta = JsonRpcCodec.emptyObject();
    meta.put(ServerRequestAttribution.RELATED_REQUEST, 999).put("progressToken", "caller-token");
    assertTrue(attribution.ownerOf(sampling(meta), LongNode.valueOf(998)).isAmbiguous());
  }

  // ------------------------------------------------------------------------ untagged, calls in
  // flight

  @Test
  void untaggedWithOneContextInFlightIsItsNewestCallNotAnsweringAlready() {
    contexts.leased("idle", "d-idle"); // leased, nothing in flight: it did not cause it
    TrackedCall older = send("a", null);
    TrackedCall newer = send("a", null);
    assertSame(newer, attribution.ownerOf(sampling(null), null).call());

    answering.add("a");
    Owner owner = attribution.ownerOf(sampling(null), null);
    assertSame(newer, owner.call(), "all answering: the newest still");
    assertEquals("a", owner.context());
    assertFalse(owner.isAmbiguous());
    assertTrue(older.upstreamId < newer.upstreamId);
  }

  @Test
  void untaggedWithTwoContextsInFlightIsNobodys() {
    send("a", null);
    send("b", null);
    Owner owner = attribution.ownerOf(sampling(null), null);
    assertTrue(owner.isAmbiguous());
    assertNull(owner.call());
    assertNull(owner.context());
    assertEquals(2, owner.claimants());
  }

  @Test
  void aContextWhoseOnlyCallIsParkedOnItsClientsAnswerLeavesTheRequestToTheOtherContext() {
    send("a", null);
    TrackedCall free = send("b", null);
    answering.add("a");
    Owner owner = attribution.ownerOf(sampling(null), null);
    assertFalse(owner.isAmbiguous());
    assertSame(free, owner.call());
    assertEquals("b", owner.context());
  }

  @Test
  void aParkedContextWithAnotherCallInFlightStillClaimsIt() {
    send("a", null);
    send("a", null);
    send("b", null);
    answering.add("a");
    Owner owner = attribution.ownerOf(sampling(null), null);
    assertTrue(owner.isAmbiguous(), "a's other call may have asked");
    assertEquals(2, owner.claimants());
  }

  @Test
  void aContextWithOnlyAListCallInFlightClaimsNothingWhileAnotherCallIsInFlight() {
    TrackedCall interactive = send("a", null);
    send("b", null, McpMethods.TOOLS_LIST); // a 2026-07-28 caller checking a tool's schema
    Owner owner = attribution.ownerOf(sampling(null), null);
    assertFalse(owner.isAmbiguous());
    assertSame(interactive, owner.call());
  }

  @Test
  void aListCallIsNeverTheCallOfItsContextThatAsked() {
    TrackedCall call = send("a", null);
    send("a", null, McpMethods.PROMPTS_LIST);
    assertSame(call, attribution.ownerOf(sampling(null), null).call());
  }

  @Test
  void withOnlyListCallsInFlightTheyStillClaimAsBefore() {
    TrackedCall list = send("a", null, McpMethods.TOOLS_LIST);
    assertSame(list, attribution.ownerOf(sampling(null), null).call());
    send("b", null, McpMethods.RESOURCES_LIST);
    assertTrue(attribution.ownerOf(sampling(null), null).isAmbiguous());
  }

  @Test
  void whenEveryContextIsParkedTheRequestIsStillAmbiguous() {
    send("a", null);
    send("b", null);
    answering.add("a");
    answering.add("b");
    assertTrue(attribution.ownerOf(sampling(null), null).isAmbiguous());
  }

  // --------------------------------------------------------------------- untagged, nothing in
  // flight

  @Test
  void withNoCallInFlightTheOnlyLeasedContextOwnsItListenerOrNot() {
    contexts.leased("silent", null);
    assertEquals("silent", attribution.ownerOf(sampling(null), null).context());
  }

  @Test
  void withNoCallInFlightTwoLeasesMakeItAmbiguousEvenIfOnlyOneListens() {
    contexts.leased("silent", null);
    contexts.leased("listening", "d-listening");
    Owner owner = attribution.ownerOf(sampling(null), null);
    assertTrue(owner.isAmbiguous());
    assertEquals(2, owner.claimants());
  }

  @Test
  void withNobodyLeasingItIsNobodysWithoutAmbiguity() {
    Owner owner = attribution.ownerOf(sampling(null), null);
    assertNull(owner.context());
    assertFalse(owner.isAmbiguous());
    assertEquals(0, owner.claimants());
  }

  // ----------------------------------------------------------------------------------------- roots

  @Test
  void rootsAskedWhileTwentyContextsAreInFlightAreTheSupervisorsNotAmbiguous() {
    for (int i = 0; i < 20; i++) {
      contexts.leased("caller-" + i, "d-" + i);
      send("caller-" + i, null);
    }
    assertNull(attribution.rootsOwnerOf(roots(), null), "answered from the configuration");
  }

  @Test
  void rootsAskedDuringTheOnlyCallOfAContextWithoutRootsAreTheSupervisors() {
    contexts.leased("a", "d-a");
    TrackedCall call = send("a", null);
    assertNull(attribution.rootsOwnerOf(roots(), null));
    assertNull(
        attribution.rootsOwnerOf(roots(), LongNode.valueOf(call.upstreamId)),
        "even named by the transport: its caller has no roots to give");
  }

  @Test
  void rootsNamingACallOfTheContextThatAnnouncedRootsAreThatCalls() {
    contexts.leased("a", "d-a");
    contexts.leased("b", "d-b");
    contexts.notifiedBy("a");
    TrackedCall announcers = send("a", null);
    send("b", null);
    Owner owner = attribution.rootsOwnerOf(roots(), LongNode.valueOf(announcers.upstreamId));
    assertSame(announcers, owner.call());
    assertTrue(owner.tied());
  }

  @Test
  void rootsWithNoCallInFlightAreTheAnnouncersAmongSeveralLeases() {
    contexts.leased("a", "d-a");
    contexts.leased("b", "d-b");
    contexts.notifiedBy("b");
    Owner owner = attribution.rootsOwnerOf(roots(), null);
    assertEquals("b", owner.context());
    assertNull(owner.call());
    assertTrue(
        attribution.ownerOf(sampling(null), null).isAmbiguous(),
        "an announcer asked for roots, not for sampling");
  }

  @Test
  void rootsWhileOnlyTheAnnouncerIsInFlightGoToItsNewestCall() {
    contexts.leased("a", "d-a");
    contexts.leased("b", "d-b");
    contexts.notifiedBy("a");
    send("a", null);
    TrackedCall newest = send("a", null);
    assertSame(newest, attribution.rootsOwnerOf(roots(), null).call());
  }

  @Test
  void rootsWhileAnotherContextIsInFlightBesideTheAnnouncerAreTheSupervisors() {
    contexts.leased("a", "d-a");
    contexts.leased("b", "d-b");
    contexts.notifiedBy("a");
    send("a", null);
    send("b", null);
    assertNull(attribution.rootsOwnerOf(roots(), null), "whose roots would they be?");
    contexts.unleased("a");
    assertNull(attribution.rootsOwnerOf(roots(), null), "an announcer gone announces nothing");
  }

  @Test
  void
      rootsAskedDuringTheOnlyCallOfACallerThatDeclaredRootsAreThatCallsThoughNothingWasAnnounced() {
    contexts.leased("a", null);
    TrackedCall roundTrip = send("a", null, McpMethods.TOOLS_CALL, true);
    Owner owner = attribution.rootsOwnerOf(roots(), null);
    assertSame(roundTrip, owner.call(), "a 2026-07-28 caller's roots come back as its round");
    assertFalse(owner.tied());
  }

  @Test
  void rootsAskedDuringTheOnlyCallOfACallerThatDeclaredNoRootsAreTheSupervisors() {
    contexts.leased("a", null);
    TrackedCall call = send("a", null);
    assertNull(attribution.rootsOwnerOf(roots(), null), "its caller has no roots to give");
    assertNull(attribution.rootsOwnerOf(roots(), LongNode.valueOf(call.upstreamId)));
  }

  @Test
  void rootsAskedWhileACallerWithRootsAndAnotherContextAreInFlightAreTheSupervisors() {
    contexts.leased("a", null);
    contexts.leased("b", "d-b");
    send("a", null, McpMethods.TOOLS_CALL, true);
    send("b", null);
    assertNull(attribution.rootsOwnerOf(roots(), null), "whose roots would they be?");
  }

  @Test
  void onlySamplingAndElicitationAreSentForACall() {
    assertTrue(ServerRequestAttribution.isForACall(McpMethods.SAMPLING_CREATE_MESSAGE));
    assertTrue(ServerRequestAttribution.isForACall(McpMethods.ELICITATION_CREATE));
    assertFalse(ServerRequestAttribution.isForACall(McpMethods.ROOTS_LIST));
    assertFalse(ServerRequestAttribution.isForACall(McpMethods.PING));
    assertFalse(ServerRequestAttribution.isForACall("x/y"));
  }

  // ------------------------------------------------------------------------------------ for client

  @Test
  void theClientSeesTheRequestWithoutOurRequestId() {
    ObjectNode meta = JsonRpcCodec.emptyObject().put("progressToken", "t");
    meta.put(ServerRequestAttribution.RELATED_REQUEST, 3);
    JsonRpcRequest request = sampling(meta);
    JsonRpcRequest shown = ServerRequestAttribution.forClient(request);
    assertFalse(shown.params().path("_meta").has(ServerRequestAttribution.RELATED_REQUEST));
    assertEquals("t", shown.params().path("_meta").path("progressToken").asText());
    assertTrue(
        request.params().path("_meta").has(ServerRequestAttribution.RELATED_REQUEST),
        "the upstream's tree is not changed");
    JsonRpcRequest plain = sampling(null);
    assertSame(plain, ServerRequestAttribution.forClient(plain));
  }

  // --------------------------------------------------------------------------------------- helpers

  private TrackedCall send(String context, String callerToken) {
    return send(context, callerToken, McpMethods.TOOLS_CALL);
  }

  private TrackedCall send(String context, String callerToken, String method) {
    return send(context, callerToken, method, false);
  }

  /** {@code answersRoots}: a round-trip call whose caller declared the roots capability. */
  private TrackedCall send(
      String context, String callerToken, String method, boolean answersRoots) {
    ObjectNode params = JsonRpcCodec.emptyObject().put("name", "sample");
    if (callerToken != null) {
      params.putObject("_meta").put("progressToken", callerToken);
    }
    UpstreamCall call =
        new UpstreamCall(
            context,
            "alpha",
            nextCallId++,
            method,
            params,
            Duration.ofSeconds(30),
            null,
            context + "-tag",
            null,
            null,
            CallerKind.LEASED,
            answersRoots);
    TrackedCall tracked =
        progressTokens.track(call, McpTelemetry.OFF.client(call.method(), call.params(), "pipe"));
    pending.sendCall(tracked);
    return tracked;
  }

  private static JsonRpcRequest sampling(JsonNode meta) {
    ObjectNode params = JsonRpcCodec.emptyObject().put("maxTokens", 100);
    if (meta != null) {
      params.set("_meta", meta);
    }
    return new JsonRpcRequest(TextNode.valueOf("up-1"), McpMethods.SAMPLING_CREATE_MESSAGE, params);
  }

  private static JsonRpcRequest roots() {
    return new JsonRpcRequest(TextNode.valueOf("up-2"), McpMethods.ROOTS_LIST, null);
  }
}
