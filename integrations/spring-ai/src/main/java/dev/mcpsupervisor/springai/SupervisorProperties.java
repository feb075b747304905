package dev.mcpsupervisor.springai;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.io.Resource;

/**
 * The {@code mcp-supervisor.*} properties of the Spring Boot auto-configuration.
 *
 * @param serversConfiguration the {@code mcpServers} file (JSON or HOCON, see
 *     docs/configuration.md); when unset, the file of Spring AI's own {@code
 *     spring.ai.mcp.client.stdio.servers-configuration} is read
 */
@ConfigurationProperties(SupervisorProperties.PREFIX)
public record SupervisorProperties(Resource serversConfiguration) {

  public static final String PREFIX = "mcp-supervisor";

  /** The property of Spring AI's MCP client that names the same kind of file. */
  public static final String SPRING_AI_SERVERS_CONFIGURATION =
      "spring.ai.mcp.client.stdio.servers-configuration";
}
