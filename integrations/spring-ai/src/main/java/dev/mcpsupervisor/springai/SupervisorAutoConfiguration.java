package dev.mcpsupervisor.springai;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.actors.call.ServerRequestHandler;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

/**
 * A {@link SessionSupervisor} over the servers of an {@code mcpServers} file, its {@link
 * SupervisorClient} and a {@link SupervisorToolCallbackProvider} with the servers' tools. Active
 * when {@code mcp-supervisor.servers-configuration} or Spring AI's {@code
 * spring.ai.mcp.client.stdio.servers-configuration} names a file (and {@code
 * mcp-supervisor.enabled} is not false). The supervisor (and its actor system, sessions and child
 * processes) is closed with the application context. Servers are started on first use, so the
 * application starts even when a server cannot.
 *
 * <p>The servers' sampling and elicitation requests during tool calls are answered by the
 * application's {@link ServerRequestHandler} bean when it has one; else sampling by its {@link
 * ChatModel} when {@code mcp-supervisor.sampling.chat-model=true} and elicitation by its {@link
 * ElicitationHandler} bean. What none answers is refused upstream with -32009, and the tools known
 * to ask for it are not offered. With Actuator present each server has a health contributor under
 * {@code mcpSupervisor}; with Micrometer present {@link SupervisorMeters} counts and times.
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

  public SupervisorAutoConfiguration() {
    SupportedVersions.problem(
            SpringBootVersion.getVersion(), ChatModel.class.getPackage().getImplementationVersion())
        .ifPresent(
            problem -> {
              throw new IllegalStateException(problem);
            });
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public SessionSupervisor sessionSupervisor(
      SupervisorProperties properties,
      Environment environment,
      ResourceLoader resources,
      ObjectProvider<SupervisorObserver> observer) {
    Resource file = properties.serversConfiguration();
    if (file == null) {
      file =
          resources.getResource(
              environment.getRequiredProperty(
                  SupervisorProperties.SPRING_AI_SERVERS_CONFIGURATION));
    }
    return SessionSupervisor.start(
        read(file),
        DefaultConnectors.create(),
        observer.getIfUnique(() -> SupervisorObserver.NONE));
  }

  /** The ready handlers, unless the application has its own {@link ServerRequestHandler}. */
  @Bean
  @ConditionalOnMissingBean(ServerRequestHandler.class)
  ServerRequestHandler supervisorServerRequests(
      SupervisorProperties properties,
      ObjectProvider<ChatModel> chatModels,
      ObjectProvider<ElicitationHandler> elicitation) {
    ChatModelSampling sampling = null;
    if (properties.sampling().chatModel()) {
      ChatModel model = chatModels.getIfUnique();
      if (model == null) {
        throw new IllegalStateException(
            "mcp-supervisor.sampling.chat-model=true needs exactly one ChatModel bean; there are "
                + chatModels.stream().count());
      }
      sampling = new ChatModelSampling(model);
    }
    return ServerRequests.of(sampling, elicitation.getIfUnique());
  }

  @Bean
  @ConditionalOnMissingBean
  public SupervisorClient supervisorClient(
      SessionSupervisor supervisor, ObjectProvider<ServerRequestHandler> serverRequests) {
    SupervisorClient client = SupervisorClient.of(supervisor);
    ServerRequestHandler handler = serverRequests.getIfUnique();
    return handler == null || handler.capabilities().isEmpty() ? client : client.answering(handler);
  }

  @Bean
  @ConditionalOnMissingBean
  public SupervisorToolCallbackProvider supervisorToolCallbackProvider(
      SupervisorClient client,
      SupervisorProperties properties,
      ObjectProvider<ServerRequestHandler> serverRequests,
      ObjectProvider<ToolCallObserver> observer) {
    ServerRequestHandler handler = serverRequests.getIfUnique();
    return new SupervisorToolCallbackProvider(
        client,
        ToolOffer.answering(
            handler == null ? Set.of() : handler.capabilities(),
            properties.offerUnanswerableTools()),
        observer.getIfUnique(() -> ToolCallObserver.NONE));
  }

  /** Micrometer's meters, when the application has Micrometer. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
  static class MeterBinding {

    @Bean
    SupervisorMeters supervisorMeters() {
      return new SupervisorMeters();
    }
  }

  /** One health contributor per server under {@code mcpSupervisor}, when Actuator is present. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  static class HealthContributors {

    @Bean
    CompositeHealthContributor mcpSupervisorHealthContributor(
        SessionSupervisor supervisor, SupervisorProperties properties) {
      Set<String> servers = supervisor.config().servers().keySet();
      List<String> unknown =
          properties.requiredServers().stream().filter(name -> !servers.contains(name)).toList();
      if (!unknown.isEmpty()) {
        throw new IllegalStateException(
            "mcp-supervisor.required-servers names servers that are not configured: " + unknown);
      }
      Map<String, HealthIndicator> indicators = new LinkedHashMap<>();
      servers.forEach(
          server ->
              indicators.put(
                  server,
                  new ServerHealthIndicator(
                      supervisor, server, properties.requiredServers().contains(server))));
      return CompositeHealthContributor.fromMap(indicators);
    }
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
