package dev.mcpsupervisor.springai;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.call.ServerRequestHandler;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

/**
 * A {@link SessionSupervisor} over the servers of an {@code mcpServers} file, its {@link
 * SupervisorClient} and a {@link SupervisorToolCallbackProvider} with every server's tools. Active
 * when {@code mcp-supervisor.servers-configuration} or Spring AI's {@code
 * spring.ai.mcp.client.stdio.servers-configuration} names a file (and {@code
 * mcp-supervisor.enabled} is not false). The supervisor (and its actor system, sessions and child
 * processes) lives as long as the application context. Servers are started on first use, so the
 * application starts even when a server cannot. A {@link ServerRequestHandler} bean answers the
 * servers' sampling, elicitation and roots requests during tool calls; without one they are refused
 * upstream with -32009 ({@code ... the caller did not declare the sampling capability}).
 */
@AutoConfiguration
@EnableConfigurationProperties(SupervisorProperties.class)
@ConditionalOnProperty(
    prefix = SupervisorProperties.PREFIX,
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@Conditional(SupervisorAutoConfiguration.ServersFileNamed.class)
public class SupervisorAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public SessionSupervisor sessionSupervisor(
      SupervisorProperties properties, Environment environment, ResourceLoader resources) {
    Resource file = properties.serversConfiguration();
    if (file == null) {
      file =
          resources.getResource(
              environment.getRequiredProperty(
                  SupervisorProperties.SPRING_AI_SERVERS_CONFIGURATION));
    }
    return SessionSupervisor.start(read(file));
  }

  @Bean
  @ConditionalOnMissingBean
  public SupervisorClient supervisorClient(
      SessionSupervisor supervisor, ObjectProvider<ServerRequestHandler> serverRequests) {
    SupervisorClient client = SupervisorClient.of(supervisor);
    ServerRequestHandler handler = serverRequests.getIfUnique();
    return handler == null ? client : client.answering(handler);
  }

  @Bean
  @ConditionalOnMissingBean
  public SupervisorToolCallbackProvider supervisorToolCallbackProvider(SupervisorClient client) {
    return new SupervisorToolCallbackProvider(client);
  }

  private static SupervisorConfig read(Resource file) {
    try {
      return ConfigLoader.parse(
          file.getContentAsString(StandardCharsets.UTF_8), file.getDescription());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file.getDescription(), e);
    }
  }

  /** Either property that names an {@code mcpServers} file is set. */
  static final class ServersFileNamed extends AnyNestedCondition {

    ServersFileNamed() {
      super(ConfigurationPhase.REGISTER_BEAN);
    }

    @ConditionalOnProperty(prefix = SupervisorProperties.PREFIX, name = "servers-configuration")
    static final class OwnProperty {}

    @ConditionalOnProperty(name = SupervisorProperties.SPRING_AI_SERVERS_CONFIGURATION)
    static final class SpringAiProperty {}
  }
}
