package dev.mcpsupervisor.app.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The configuration used without {@code --config}: one stdio server, {@value #SERVER_NAME}, which
 * is {@link DemoServer} run by this same JVM binary from this same jar (or classpath), so it works
 * wherever the application itself runs.
 */
public final class DemoConfig {

  public static final String SERVER_NAME = "demo";

  /** How errors and logs name this configuration, in place of a file name. */
  public static final String ORIGIN = "built-in demo config";

  /**
   * The demo server is tiny: start fast and stay small rather than run fast. (So is the warm-up's
   * load generator.)
   */
  private static final List<String> SMALL_JVM_OPTIONS =
      List.of(
          "-XX:TieredStopAtLevel=1",
          "-XX:+UseSerialGC",
          "-Xms16m",
          "-Xmx128m",
          "-Xss512k",
          "-XX:-UsePerfData");

  private DemoConfig() {}

  public static SupervisorConfig create() {
    return ConfigLoader.parse(json(), ORIGIN);
  }

  /**
   * The config as a client-format JSON document; it goes through the same loader as a user's file.
   */
  static String json() {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode root = mapper.createObjectNode();
    ObjectNode demo = root.putObject("mcpServers").putObject(SERVER_NAME);
    List<String> command = demoServerCommand();
    demo.put("command", command.get(0));
    command.subList(1, command.size()).forEach(demo.putArray("args")::add);
    try {
      return mapper.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the demo config", e);
    }
  }

  /**
   * {@code <this java> <options> -cp <this jar or classpath>
   * dev.mcpsupervisor.app.demo.DemoServer}.
   */
  public static List<String> demoServerCommand() {
    return smallJvmCommand(DemoServer.class.getName());
  }

  /**
   * {@code <this java> <small-JVM options> <its archive> -cp <this jar or classpath> <mainClass>}:
   * a short-lived helper process run from the application's own code.
   */
  public static List<String> smallJvmCommand(String mainClass) {
    List<String> command = new ArrayList<>();
    command.add(javaBinary());
    command.addAll(SMALL_JVM_OPTIONS);
    command.addAll(HelperArchive.options(mainClass));
    command.add("-cp");
    command.add(absoluteClasspath());
    command.add(mainClass);
    return command;
  }

  private static String javaBinary() {
    return ProcessHandle.current()
        .info()
        .command()
        .filter(binary -> Files.isExecutable(Path.of(binary)))
        .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  /**
   * Absolute, so a server configured with another {@code cwd} (or a relative {@code java -jar}
   * path) still works.
   */
  private static String absoluteClasspath() {
    List<String> entries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        entries.add(Path.of(entry).toAbsolutePath().normalize().toString());
      }
    }
    return String.join(File.pathSeparator, entries);
  }
}
