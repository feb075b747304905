package dev.mcpsupervisor.actors.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.delivery.CallerKind;
import dev.mcpsupervisor.protocol.InputRequests;
import dev.mcpsupervisor.protocol.LogLevels;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What one call of {@link dev.mcpsupervisor.actors.SessionSupervisor#call} says about its caller,
 * as a MCP 2026-07-28 request's {@code _meta} does: which server requests it can answer, which logs
 * it wants, how long it waits, and where its notifications go. Immutable; start from {@link
 * #defaults()}.
 *
 * @param capabilities the server requests the caller answers in input rounds; any other is refused
 *     upstream
 * @param logLevel the least severe log level the caller wants, or null for no logs at all
 * @param deadline how long the call may take, rounds included; null for the server's {@code
 *     requestTimeout}
 * @param notifications gets the call's progress (with the caller's own token) and the logs its
 *     level lets through; called on a supervisor thread, so it must return at once
 * @param inputResponses answers the caller gives before it is asked, by key (as a 2026-07-28
 *     request's {@code inputResponses}): a server request whose key they hold is answered from them
 *     and never goes out in a round
 * @param endsWithoutCapability what a sampling or elicitation request the caller has no capability
 *     for does: false (the default) refuses it upstream and the call goes on; true also ends the
 *     call, cancelled upstream, with -32021 (Missing client capability) and {@code
 *     data.requiredCapabilities}, as a 2026-07-28 server answers such a client. A {@code
 *     roots/list} is only refused either way: servers ask for roots unprompted
 * @param caller who calls ({@link CallerKind}): whether the call holds a lease ({@link
 *     #withoutLease()}: a caller with no lifetime needs no release) and whether the caller speaks
 *     MCP 2026-07-28 ({@link #fromStatelessCaller()}: it gets the server's own rounds and refusals
 *     rather than the bridge's)
 */
public record CallOptions(
    Set<ClientCapability> capabilities,
    String logLevel,
    Duration deadline,
    Consumer<JsonRpcNotification> notifications,
    Map<String, JsonNode> inputResponses,
    boolean endsWithoutCapability,
    CallerKind caller) {

  /** The client capabilities of MCP that let a server ask its client something during a call. */
  public enum ClientCapability {
    SAMPLING("sampling"),
    ELICITATION("elicitation"),
    ROOTS("roots");

    private final String wireName;

    ClientCapability(String wireName) {
      this.wireName = wireName;
    }

    /** Its key in a {@code clientCapabilities} object. */
    public String wireName() {
      return wireName;
    }

    /** The capability a server request needs, or null for a method none covers. */
    static ClientCapability neededBy(String method) {
      String needed = InputRequests.requiredCapability(method);
      for (ClientCapability capability : values()) {
        if (capability.wireName.equals(needed)) {
          return capability;
        }
      }
      return null;
    }
  }

  public CallOptions {
    capabilities =
        capabilities == null || capabilities.isEmpty()
            ? Set.of()
            : Set.copyOf(EnumSet.copyOf(capabilities));
    if (logLevel != null && !LogLevels.isLevel(logLevel)) {
      throw new IllegalArgumentException(
          "log level \"" + logLevel + "\" is not one of " + LogLevels.ORDER);
    }
    if (deadline != null && (deadline.isNegative() || deadline.isZero())) {
      throw new IllegalArgumentException("deadline must be positive, was " + deadline);
    }
    notifications = notifications == null ? notification -> {} : notifications;
    inputResponses = inputResponses == null ? Map.of() : withoutNulls(inputResponses);
    caller = caller == null ? CallerKind.LEASED : caller;
  }

  /** Answers no server request, wants no logs, waits the server's requestTimeout. */
  public static CallOptions defaults() {
    return new CallOptions(Set.of(), null, null, null, null, false, CallerKind.LEASED);
  }

  public CallOptions withCapabilities(ClientCapability... declared) {
    EnumSet<ClientCapability> all = EnumSet.noneOf(ClientCapability.class);
    all.addAll(capabilities);
    all.addAll(Set.of(declared));
    return new CallOptions(
        all, logLevel, deadline, notifications, inputResponses, endsWithoutCapability, caller);
  }

  /**
   * The capabilities a 2026-07-28 {@code clientCapabilities} object declares (e.g. a downstream
   * request's {@code _meta["io.modelcontextprotocol/clientCapabilities"]}), in place of these.
   */
  public CallOptions withClientCapabilities(JsonNode clientCapabilities) {
    EnumSet<ClientCapability> declared = EnumSet.noneOf(ClientCapability.class);
    for (ClientCapability capability : ClientCapability.values()) {
      if (clientCapabilities != null && clientCapabilities.has(capability.wireName())) {
        declared.add(capability);
      }
    }
    return new CallOptions(
        declared, logLevel, deadline, notifications, inputResponses, endsWithoutCapability, caller);
  }

  /**
   * @param level one of debug, info, notice, warning, error, critical, alert, emergency; null for
   *     no logs
   */
  public CallOptions withLogLevel(String level) {
    return new CallOptions(
        capabilities,
        level,
        deadline,
        notifications,
        inputResponses,
        endsWithoutCapability,
        caller);
  }

  public CallOptions withDeadline(Duration callDeadline) {
    return new CallOptions(
        capabilities,
        logLevel,
        callDeadline,
        notifications,
        inputResponses,
        endsWithoutCapability,
        caller);
  }

  public CallOptions withNotifications(Consumer<JsonRpcNotification> consumer) {
    return new CallOptions(
        capabilities,
        logLevel,
        deadline,
        Objects.requireNonNull(consumer, "consumer"),
        inputResponses,
        endsWithoutCapability,
        caller);
  }

  /**
   * Answers given before they are asked for: key → the result (a 2026-07-28 request's {@code
   * inputResponses}, e.g. from a client that retries without a {@code requestState}).
   */
  public CallOptions withInputResponses(Map<String, JsonNode> responses) {
    return new CallOptions(
        capabilities, logLevel, deadline, notifications, responses, endsWithoutCapability, caller);
  }

  /** A sampling or elicitation request the caller cannot answer ends the call with -32021. */
  public CallOptions endingWithoutCapability() {
    return new CallOptions(
        capabilities, logLevel, deadline, notifications, inputResponses, true, caller);
  }

  /**
   * The call holds no lease: the server's key actor serves it on a pooled session (a session of its
   * own under {@code isolation: context}, released with the answer) and the context keeps nothing
   * afterwards, so a caller with no lifetime needs no release; a context that holds a lease on the
   * server still calls on its session.
   */
  public CallOptions withoutLease() {
    return withCaller(caller.withoutLease());
  }

  /**
   * The caller speaks MCP 2026-07-28: a server that speaks both eras serves the call in that era
   * (over HTTP with {@code protocol: auto}).
   */
  public CallOptions fromStatelessCaller() {
    return withCaller(caller.speakingStateless());
  }

  /** The call holds no lease (see {@link #withoutLease()}). */
  public boolean leaseless() {
    return caller.leaseless();
  }

  /** The call made by {@code kind} of caller. */
  public CallOptions withCaller(CallerKind kind) {
    return new CallOptions(
        capabilities,
        logLevel,
        deadline,
        notifications,
        inputResponses,
        endsWithoutCapability,
        kind);
  }

  boolean answers(ClientCapability capability) {
    return capabilities.contains(capability);
  }

  /** A caller's map of answers may hold nulls: a null key or answer is no answer. */
  static Map<String, JsonNode> withoutNulls(Map<String, JsonNode> responses) {
    Map<String, JsonNode> given = new HashMap<>();
    responses.forEach(
        (key, value) -> {
          if (key != null && value != null) {
            given.put(key, value);
          }
        });
    return Map.copyOf(given);
  }
}
