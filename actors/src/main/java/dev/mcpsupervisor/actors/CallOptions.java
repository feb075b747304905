package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.InputRequests;
import dev.mcpsupervisor.protocol.LogLevels;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What one call of {@link SessionSupervisor#call} says about its caller, as a MCP 2026-07-28
 * request's {@code _meta} does: which server requests it can answer, which logs it wants, how long
 * it waits, and where its notifications go. Immutable; start from {@link #defaults()}.
 *
 * @param capabilities the server requests the caller answers in input rounds; any other is refused
 *     upstream
 * @param logLevel the least severe log level the caller wants, or null for no logs at all
 * @param deadline how long the call may take, rounds included; null for the server's {@code
 *     requestTimeout}
 * @param notifications gets the call's progress (with the caller's own token) and the logs its
 *     level lets through; called on a supervisor thread, so it must return at once
 */
public record CallOptions(
    Set<ClientCapability> capabilities,
    String logLevel,
    Duration deadline,
    Consumer<JsonRpcNotification> notifications) {

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
  }

  /** Answers no server request, wants no logs, waits the server's requestTimeout. */
  public static CallOptions defaults() {
    return new CallOptions(Set.of(), null, null, null);
  }

  public CallOptions withCapabilities(ClientCapability... declared) {
    EnumSet<ClientCapability> all = EnumSet.noneOf(ClientCapability.class);
    all.addAll(capabilities);
    all.addAll(Set.of(declared));
    return new CallOptions(all, logLevel, deadline, notifications);
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
    return new CallOptions(declared, logLevel, deadline, notifications);
  }

  /**
   * @param level one of debug, info, notice, warning, error, critical, alert, emergency; null for
   *     no logs
   */
  public CallOptions withLogLevel(String level) {
    return new CallOptions(capabilities, level, deadline, notifications);
  }

  public CallOptions withDeadline(Duration callDeadline) {
    return new CallOptions(capabilities, logLevel, callDeadline, notifications);
  }

  public CallOptions withNotifications(Consumer<JsonRpcNotification> consumer) {
    return new CallOptions(
        capabilities, logLevel, deadline, Objects.requireNonNull(consumer, "consumer"));
  }

  boolean answers(ClientCapability capability) {
    return capabilities.contains(capability);
  }
}
