package dev.mcpsupervisor.springai;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.core.io.Resource;

/**
 * The {@code mcp-supervisor.*} properties of the Spring Boot auto-configuration; their metadata
 * (for IDE completion) is generated from this record by {@code
 * spring-boot-configuration-processor}.
 *
 * @param enabled Whether to make a supervisor (when a servers file is named).
 * @param serversConfiguration The mcpServers file (JSON or HOCON). When unset, the file named by
 *     Spring AI's own spring.ai.mcp.client.stdio.servers-configuration is read.
 * @param requiredServers Servers without which the application is not healthy: with Actuator, such
 *     a server's health is DOWN while its circuit is open; any other server's is at worst UNKNOWN.
 * @param offerUnanswerableTools Whether to offer the model the tools known to send sampling or
 *     elicitation requests that no handler answers. They can only fail, so by default they are left
 *     out.
 * @param sampling How the servers' sampling requests are answered.
 */
@ConfigurationProperties(SupervisorProperties.PREFIX)
public record SupervisorProperties(
    @DefaultValue("true") boolean enabled,
    Resource serversConfiguration,
    @DefaultValue List<String> requiredServers,
    @DefaultValue("false") boolean offerUnanswerableTools,
    @DefaultValue Sampling sampling) {

  public static final String PREFIX = "mcp-supervisor";

  /** The property of Spring AI's MCP client that names the same kind of file. */
  public static final String SPRING_AI_SERVERS_CONFIGURATION =
      "spring.ai.mcp.client.stdio.servers-configuration";

  /**
   * How the servers' {@code sampling/createMessage} requests are answered.
   *
   * @param chatModel Whether the application's own Spring AI ChatModel bean answers the servers'
   *     sampling requests.
   */
  public record Sampling(@DefaultValue("false") boolean chatModel) {}
}
