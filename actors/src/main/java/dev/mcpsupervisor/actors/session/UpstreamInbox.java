package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.config.Root;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What an upstream sends a session besides the answers to its calls — notifications (progress,
 * logging, list_changed, cancelled) and requests of its own (sampling, elicitation, roots) — and
 * what contexts send back (answers to those requests, client notifications). Where each goes is
 * decided by {@link LeasedContexts} (and a call's own delivery). Runs on the session's thread; the
 * calls it relates messages to are {@link SessionCalls}'.
 */
final class UpstreamInbox {

  private final String server;
  private final LeasedContexts<ActorRef<ContextDelivery.Command>> contexts;
  private final ServerRequests serverRequests;
  private final ProgressTokens progressTokens;
  private final PendingRequests pending;
  private final ServerRequestAttribution attribution;
  private final ActorRef<SessionActor.Report> parent;

  /** The result of a roots/list answered here: the server's configured roots. */
  private final JsonNode configuredRoots;

  /** The tools this session told its key actor are interactive. */
  private final Set<String> reportedTools = new HashSet<>();

  private final BiConsumer<SessionCalls.Link, JsonRpcMessage> transmit;
  private final BiConsumer<String, SessionCalls.Link> listChanged;

  private static final Set<String> LIST_CHANGED =
      Set.of(
          McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED,
          McpMethods.NOTIFICATION_PROMPTS_LIST_CHANGED,
          McpMethods.NOTIFICATION_RESOURCES_LIST_CHANGED);

  /**
   * @param transmit sends a message on a link (a failure needs no handling: nothing waits for it)
   * @param parent the key actor, told which tools turn out interactive
   * @param roots what a roots/list no caller answers is answered with
   * @param listChanged told which list_changed notification the upstream sent (before any context
   *     sees it), with the link if there is one
   */
  UpstreamInbox(
      String server,
      LeasedContexts<ActorRef<ContextDelivery.Command>> contexts,
      ServerRequests serverRequests,
      ProgressTokens progressTokens,
      PendingRequests pending,
      ActorRef<SessionActor.Report> parent,
      List<Root> roots,
      BiConsumer<SessionCalls.Link, JsonRpcMessage> transmit,
      BiConsumer<String, SessionCalls.Link> listChanged) {
    this.server = server;
    this.contexts = contexts;
    this.serverRequests = serverRequests;
    this.progressTokens = progressTokens;
    this.pending = pending;
    this.attribution =
        new ServerRequestAttribution(
            pending, progressTokens, contexts, call -> serverRequests.isAsking(deliveryFor(call)));
    this.parent = parent;
    this.configuredRoots = rootsResult(roots);
    this.transmit = transmit;
    this.listChanged = listChanged;
  }

  LeasedContexts<ActorRef<ContextDelivery.Command>> contexts() {
    return contexts;
  }

  /** Server requests waiting for a context's or a call's answer. */
  int awaitingAnswers() {
    return serverRequests.waiting();
  }

  /** Their connection is gone, or the session is ending: nothing can answer them upstream. */
  void forgetServerRequests() {
    serverRequests.forgetAll();
  }

  void onNotification(
      JsonRpcNotification notification, JsonNode relatedRequestId, SessionCalls.Link ready) {
    String method = notification.method();
    if (McpMethods.NOTIFICATION_PROGRESS.equals(method)) {
      TrackedCall call = progressTokens.callOf(ProgressTokens.tokenOf(notification));
      if (call != null) {
        deliver(deliveryFor(call), ProgressTokens.forCaller(notification, call), call.call().tag());
      }
    } else if (McpMethods.NOTIFICATION_CANCELLED.equals(method)) {
      serverRequests.withdrawn(notification);
    } else {
      if (LIST_CHANGED.contains(method)) {
        listChanged.accept(method, ready);
      }
      // logging on a call's response stream goes to that call's context only; the rest to every
      // listener
      TrackedCall related =
          McpMethods.NOTIFICATION_MESSAGE.equals(method)
              ? pending.relatedCall(relatedRequestId)
              : null;
      if (related != null) {
        deliver(deliveryFor(related), notification, related.call().tag());
      } else {
        contexts.everyListener().forEach(delivery -> deliver(delivery, notification, null));
        if (McpMethods.NOTIFICATION_MESSAGE.equals(method)) {
          forEveryCallDeliveryAskingForLogs(
              call -> deliver(call.call().callDelivery(), notification, null));
        }
      }
    }
  }

  /**
   * Sampling, elicitation: to the one context {@link ServerRequestAttribution} names; more than one
   * could have caused it, or nobody to ask → an error upstream at once. Ping, and roots no caller
   * announced, are answered here (quietly: they are the session's, not a caller's).
   */
  void onServerRequest(JsonRpcRequest request, JsonNode relatedRequestId, SessionCalls.Link ready) {
    if (McpMethods.PING.equals(request.method())) {
      transmit.accept(ready, JsonRpcResponse.success(request.id(), JsonRpcCodec.emptyObject()));
      return;
    }
    boolean roots = McpMethods.ROOTS_LIST.equals(request.method());
    ServerRequestAttribution.Owner owner =
        roots
            ? attribution.rootsOwnerOf(request, relatedRequestId)
            : attribution.ownerOf(request, relatedRequestId);
    if (owner == null) {
      transmit.accept(ready, JsonRpcResponse.success(request.id(), configuredRoots.deepCopy()));
      return;
    }
    if (ServerRequestAttribution.isForACall(request.method())) {
      reportInteractiveTool(owner);
    }
    JsonRpcResponse refusal;
    if (owner.isAmbiguous()) {
      refusal =
          JsonRpcResponse.failure(
              request.id(),
              SupervisorErrors.ambiguousServerRequest(server, request.method(), owner.claimants()));
    } else {
      JsonRpcRequest forClient = ServerRequestAttribution.forClient(request);
      refusal =
          owner.call() != null
              ? serverRequests.ask(
                  forClient, targetFor(owner.call()), owner.call().call().tag(), ready.ref())
              : serverRequests.ask(forClient, targetOf(owner.context()), null, ready.ref());
    }
    if (refusal != null) {
      transmit.accept(ready, refusal);
    }
  }

  /**
   * The tool whose call sent a server request that named no call is interactive: the call it was
   * attributed to by elimination, or, when it is ambiguous, the one tool every call in flight is a
   * call of (one of them sent it). A request that names its call (Streamable HTTP, {@code _meta})
   * needs no scheduling, so it marks nothing.
   */
  private void reportInteractiveTool(ServerRequestAttribution.Owner owner) {
    if (owner.tied()) {
      return;
    }
    String tool = null;
    if (owner.call() != null) {
      tool = toolOf(owner.call());
    } else if (owner.isAmbiguous()) {
      for (TrackedCall call : pending.inFlightCalls()) {
        String called = toolOf(call);
        if (called == null || (tool != null && !tool.equals(called))) {
          return;
        }
        tool = called;
      }
    }
    if (tool != null && reportedTools.add(tool)) {
      parent.tell(new SessionActor.ToolIsInteractive(tool));
    }
  }

  /** A ListRootsResult of {@code roots}. */
  static JsonNode rootsResult(List<Root> roots) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    ArrayNode list = result.putArray("roots");
    for (Root root : roots) {
      ObjectNode entry = list.addObject().put("uri", root.uri());
      if (root.name() != null) {
        entry.put("name", root.name());
      }
    }
    return result;
  }

  /** The tool a tools/call calls, else null. */
  private static String toolOf(TrackedCall call) {
    if (!McpMethods.TOOLS_CALL.equals(call.method()) || call.call().params() == null) {
      return null;
    }
    JsonNode name = call.call().params().get("name");
    return name != null && name.isTextual() ? name.textValue() : null;
  }

  void onServerRequestAnswer(ContextDelivery.ServerRequestAnswer answer, SessionCalls.Link ready) {
    JsonRpcResponse response =
        serverRequests.answered(
            answer.localId(), answer.response(), ready == null ? null : ready.ref());
    if (response != null) {
      transmit.accept(ready, response); // else expired, withdrawn, or its connection is gone
    }
  }

  void onServerRequestExpired(ServerRequests.Expired expired, SessionCalls.Link ready) {
    if (ready != null) {
      JsonRpcResponse refusal = serverRequests.expired(expired.localId(), ready.ref());
      if (refusal != null) {
        transmit.accept(ready, refusal);
      }
    }
  }

  void onClientNotification(SessionActor.ClientNotification notification, SessionCalls.Link ready) {
    if (McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED.equals(notification.method())) {
      contexts.notifiedBy(notification.context()); // it has roots of its own to give
    }
    if (!McpMethods.NOTIFICATION_INITIALIZED.equals(
        notification.method())) { // the link sent its own
      transmit.accept(ready, new JsonRpcNotification(notification.method(), notification.params()));
    }
  }

  /**
   * Where the call's own messages (progress, related logs, its answer) go: its own delivery if it
   * has one, else its context's.
   */
  ActorRef<ContextDelivery.Command> deliveryFor(TrackedCall call) {
    return call.call().callDelivery() != null
        ? call.call().callDelivery()
        : contexts.deliveryFor(call.call().context(), call.call().delivery());
  }

  private LeasedContexts.Target<ActorRef<ContextDelivery.Command>> targetFor(TrackedCall owner) {
    return owner.call().callDelivery() != null
        ? new LeasedContexts.Target<>(owner.call().callDelivery(), null)
        : contexts.targetOf(owner.call().context(), owner.call().delivery());
  }

  /** A context's with no call of its own; null: nobody leases the session. */
  private LeasedContexts.Target<ActorRef<ContextDelivery.Command>> targetOf(String context) {
    return context != null
        ? contexts.targetOf(context, null)
        : new LeasedContexts.Target<>(null, "no request in flight and no leased context");
  }

  /**
   * Logging that names no call (stdio, the GET stream) concerns every call in flight as much as
   * every context: calls with their own delivery get it when they asked for logs (their params
   * carry a log level, as a 2026-07-28 request's do).
   */
  private void forEveryCallDeliveryAskingForLogs(Consumer<TrackedCall> deliver) {
    for (TrackedCall call : pending.inFlightCalls()) {
      JsonNode params = call.call().params();
      if (call.call().callDelivery() != null
          && params != null
          && params.path(StatelessEnvelope.META).has(StatelessEnvelope.META_LOG_LEVEL)) {
        deliver.accept(call);
      }
    }
  }

  private void deliver(
      ActorRef<ContextDelivery.Command> delivery, JsonRpcNotification notification, String tag) {
    if (delivery != null) {
      delivery.tell(new ContextDelivery.Notification(server, notification, tag));
    }
  }
}
