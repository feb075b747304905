package dev.mcpsupervisor.protocol;

import java.util.Set;

/** MCP method names, in one place. */
public final class McpMethods {

  private McpMethods() {}

  public static final String INITIALIZE = "initialize";
  public static final String PING = "ping";
  public static final String TOOLS_LIST = "tools/list";
  public static final String TOOLS_CALL = "tools/call";
  public static final String RESOURCES_LIST = "resources/list";
  public static final String RESOURCES_TEMPLATES_LIST = "resources/templates/list";
  public static final String RESOURCES_READ = "resources/read";
  public static final String RESOURCES_SUBSCRIBE = "resources/subscribe";
  public static final String RESOURCES_UNSUBSCRIBE = "resources/unsubscribe";
  public static final String PROMPTS_LIST = "prompts/list";
  public static final String PROMPTS_GET = "prompts/get";
  public static final String COMPLETION_COMPLETE = "completion/complete";
  public static final String LOGGING_SET_LEVEL = "logging/setLevel";

  /** 2026-07-28: what a server serves, before anything else (replaces initialize). */
  public static final String SERVER_DISCOVER = "server/discover";

  /** 2026-07-28: one POST stream of list_changed and resource updates (replaces GET). */
  public static final String SUBSCRIPTIONS_LISTEN = "subscriptions/listen";

  // server -> client requests
  public static final String SAMPLING_CREATE_MESSAGE = "sampling/createMessage";
  public static final String ELICITATION_CREATE = "elicitation/create";
  public static final String ROOTS_LIST = "roots/list";

  // notifications
  public static final String NOTIFICATION_INITIALIZED = "notifications/initialized";
  public static final String NOTIFICATION_CANCELLED = "notifications/cancelled";
  public static final String NOTIFICATION_PROGRESS = "notifications/progress";
  public static final String NOTIFICATION_MESSAGE = "notifications/message";
  public static final String NOTIFICATION_TOOLS_LIST_CHANGED = "notifications/tools/list_changed";
  public static final String NOTIFICATION_RESOURCES_LIST_CHANGED =
      "notifications/resources/list_changed";
  public static final String NOTIFICATION_RESOURCE_UPDATED = "notifications/resources/updated";
  public static final String NOTIFICATION_PROMPTS_LIST_CHANGED =
      "notifications/prompts/list_changed";
  public static final String NOTIFICATION_ROOTS_LIST_CHANGED = "notifications/roots/list_changed";

  /** Methods that read and never change upstream state: safe to retry once on a new session. */
  public static final Set<String> READ_ONLY =
      Set.of(
          PING,
          TOOLS_LIST,
          RESOURCES_LIST,
          RESOURCES_TEMPLATES_LIST,
          RESOURCES_READ,
          PROMPTS_LIST,
          PROMPTS_GET,
          COMPLETION_COMPLETE);

  public static boolean isListChanged(String notificationMethod) {
    return notificationMethod.endsWith("/list_changed");
  }
}
