package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Keeps the README true: its commands are the contract's, its config example loads. */
class ReadmeTest {

  private static final Path README = Path.of(System.getProperty("basedir", "."), "..", "README.md");

  @Test
  void readmeShowsTheTwoContractCommands() throws IOException {
    String readme = Files.readString(README);
    assertTrue(readme.contains("```sh\nmvn -B -DskipTests package && bin/mcp-supervisor\n```"));
    assertTrue(readme.contains("`java -jar src/target/mcp-supervisor.jar --config servers.json"));
    assertTrue(readme.contains("```sh\nmvn -B verify\n```"));
  }

  @Test
  void readmeConfigExampleLoads() throws IOException {
    Matcher json =
        Pattern.compile("```json\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(README));
    assertTrue(json.find(), "no json block in the README");
    SupervisorConfig config = ConfigLoader.parse(json.group(1), "README.md");
    assertEquals(List.of("files", "github"), List.copyOf(config.servers().keySet()));
    assertTrue(config.servers().get("files").spec() instanceof ServerSpec.Stdio);
    assertTrue(config.servers().get("github").spec() instanceof ServerSpec.StreamableHttp);
    assertEquals(8080, config.gateway().port());
    assertEquals(List.of("https://agents.example.com"), config.gateway().allowedOrigins());
  }
}
