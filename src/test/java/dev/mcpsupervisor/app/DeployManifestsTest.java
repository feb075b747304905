package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import dev.mcpsupervisor.app.runtime.Application;
import dev.mcpsupervisor.protocol.config.BindSafety;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * deploy/kubernetes and the Dockerfile, checked against the application so they cannot drift: the
 * ConfigMap's file loads through the real loader with the Deployment's env, its ports are the
 * containers' and the image's, the probes are answered 200 by the real routes on that file, and the
 * grace period outlasts the longest stop.
 */
class DeployManifestsTest {

  private static final Path ROOT = Path.of(System.getProperty("basedir", "."), "..");
  private static final Path KUBERNETES = ROOT.resolve("deploy/kubernetes");

  /** What the kubelet gives {@code status.podIP}: a pod's address, not loopback. */
  private static final String POD_IP = "10.0.0.7";

  private static List<JsonNode> manifests;
  private static JsonNode deployment;
  private static JsonNode container;

  @BeforeAll
  static void readManifests() throws IOException {
    YAMLMapper yaml = new YAMLMapper();
    manifests = new ArrayList<>();
    try (Stream<Path> files = Files.list(KUBERNETES)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        manifests.addAll(
            yaml.readerFor(JsonNode.class).<JsonNode>readValues(file.toFile()).readAll());
      }
    }
    deployment = one("Deployment");
    JsonNode containers = deployment.at("/spec/template/spec/containers");
    assertEquals(1, containers.size(), "one container: the gateway");
    container = containers.get(0);
  }

  @Test
  void kustomizationListsEveryManifest() throws IOException {
    Set<String> listed = new TreeSet<>();
    one("Kustomization").get("resources").forEach(file -> listed.add(file.asText()));
    try (Stream<Path> files = Files.list(KUBERNETES)) {
      assertEquals(
          files
              .map(file -> file.getFileName().toString())
              .filter(name -> name.endsWith(".yaml") && !name.equals("kustomization.yaml"))
              .collect(Collectors.toCollection(TreeSet::new)),
          listed);
    }
  }

  @Test
  void everyObjectSelectsTheGatewaysPods() {
    String namespace = one("Namespace").at("/metadata/name").asText();
    for (JsonNode manifest : manifests) {
      String kind = manifest.get("kind").asText();
      if (!kind.equals("Namespace") && !kind.equals("Kustomization")) {
        assertEquals(namespace, manifest.at("/metadata/namespace").asText(), kind);
      }
    }
    JsonNode podLabels = deployment.at("/spec/template/metadata/labels");
    assertEquals(podLabels, deployment.at("/spec/selector/matchLabels"));
    assertEquals(podLabels, one("Service").at("/spec/selector"));
    assertEquals(podLabels, one("PodDisruptionBudget").at("/spec/selector/matchLabels"));
    assertEquals(podLabels, one("NetworkPolicy").at("/spec/podSelector/matchLabels"));
    // the Service and the NetworkPolicy name the container's ports
    Set<String> portNames = containerPorts().keySet();
    assertTrue(portNames.contains(one("Service").at("/spec/ports/0/targetPort").asText()));
    one("NetworkPolicy")
        .at("/spec/ingress")
        .forEach(
            rule ->
                rule.get("ports")
                    .forEach(port -> assertTrue(portNames.contains(port.get("port").asText()))));
  }

  @Test
  void discoveryMayListThePods() {
    String account = deployment.at("/spec/template/spec/serviceAccountName").asText();
    assertEquals(account, one("ServiceAccount").at("/metadata/name").asText());
    JsonNode binding = one("RoleBinding");
    assertEquals(account, binding.at("/subjects/0/name").asText());
    assertEquals("ServiceAccount", binding.at("/subjects/0/kind").asText());
    assertEquals(one("Role").at("/metadata/name").asText(), binding.at("/roleRef/name").asText());
    JsonNode rule = one("Role").at("/rules/0");
    assertEquals("[\"pods\"]", rule.get("resources").toString());
    assertEquals(Set.of("get", "watch", "list"), texts(rule.get("verbs")));
  }

  @Test
  void threeReplicasOneAtATime() {
    assertEquals(3, deployment.at("/spec/replicas").asInt());
    assertEquals(1, one("PodDisruptionBudget").at("/spec/maxUnavailable").asInt());
    assertEquals(0, deployment.at("/spec/strategy/rollingUpdate/maxUnavailable").asInt());
  }

  @Test
  void theConfigMapLoadsThroughTheRealLoader() {
    SupervisorConfig config = ConfigLoader.parse(rendered(resolvedConfigMap()), "gateway.conf");
    assertEquals(
        containerPorts().get("http"), config.gateway().port(), "gateway.port, container's http");
    assertEquals(Optional.empty(), BindSafety.refusal(config.gateway(), false), "safe to serve");
    assertTrue(config.gateway().allowedHosts().contains(POD_IP), "the probes' Host: the pod IP");
    assertTrue(config.gateway().watchConfig(), "a ConfigMap change is applied live");
    assertEquals(
        ClusterConfig.DiscoveryMethod.KUBERNETES_API,
        config.gateway().cluster().discovery().method());
  }

  @Test
  void theClusterSectionMatchesThePodAndItsPorts() {
    Config cluster = resolvedConfigMap().getConfig("gateway.cluster");
    Map<String, Integer> ports = containerPorts();
    assertEquals(POD_IP, cluster.getString("host"), "Artery binds the pod's IP");
    assertEquals(ports.get("remoting"), cluster.getInt("port"));
    Config discovery = cluster.getConfig("discovery");
    assertEquals("kubernetes-api", discovery.getString("method"));
    // kubernetes-api discovery's pod-label-selector is app=%s, %s the service name
    assertEquals(
        deployment.at("/spec/template/metadata/labels/app").asText(),
        discovery.getString("serviceName"));
    assertTrue(
        discovery.getInt("requiredContactPoints") <= deployment.at("/spec/replicas").asInt());
    // written out, not left to the default, so that the pod's port can be compared with it
    int management = discovery.getInt("managementPort");
    // discovery reaches each pod's container port of this name (absent: managementPort itself)
    String portName =
        discovery.hasPath("portName") ? discovery.getString("portName") : "management";
    assertEquals(ports.get(portName), management, "the management endpoint's container port");
  }

  @Test
  void theProbesAreAnsweredByTheRealRoutes() throws Exception {
    // the ConfigMap's gateway on loopback (the pod's IP is not this machine's), a single node
    SupervisorConfig file =
        ConfigLoader.parse(
            rendered(resolvedConfigMap().withoutPath("gateway.cluster")), "gateway.conf");
    SupervisorConfig config =
        new SupervisorConfig(file.servers(), file.gateway().withAddress("127.0.0.1", 0));
    Application application =
        Application.start(config).toCompletableFuture().get(60, TimeUnit.SECONDS);
    try {
      int port = application.address().getPort();
      for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
        JsonNode get = container.at("/" + probe + "/httpGet");
        assertEquals(
            containerPorts().get(get.get("port").asText()),
            containerPorts().get("http"),
            probe + " asks the gateway's port");
        // the kubelet sends the pod's IP and port as Host
        assertEquals(
            200, status(port, get.get("path").asText(), POD_IP + ":" + port), probe + "'s path");
      }
      assertEquals(
          "/readyz", container.at("/readinessProbe/httpGet/path").asText(), "503 once stopping");
    } finally {
      application.stop(Duration.ofSeconds(5)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void theGracePeriodOutlastsTheLongestStop() {
    Config settings = jvmSettings().withFallback(ConfigFactory.load());
    long stop = Main.stopBound(settings).toSeconds();
    long preStop = preStopSleepSeconds();
    long grace = deployment.at("/spec/template/spec/terminationGracePeriodSeconds").asLong();
    assertTrue(
        grace > preStop + stop,
        "terminationGracePeriodSeconds "
            + grace
            + " must be longer than preStop's "
            + preStop
            + " s and the longest stop, "
            + stop
            + " s");
    assertTrue(preStop > 0, "a preStop sleep: the load balancers stop sending before SIGTERM");
    // the start probe gives the gateway its startTimeout to bind, and the JVM's start
    JsonNode startup = container.get("startupProbe");
    long startWindow =
        startup.get("periodSeconds").asLong() * startup.get("failureThreshold").asLong();
    assertTrue(
        startWindow > settings.getDuration("mcp-supervisor.application.startTimeout").toSeconds());
  }

  @Test
  void theContainerReadsTheConfigMapsFile() {
    List<String> args = new ArrayList<>();
    container.get("args").forEach(arg -> args.add(arg.asText()));
    assertEquals("--config", args.get(0));
    Path file = Path.of(args.get(1));
    JsonNode mount = container.at("/volumeMounts/0");
    assertEquals(Path.of(mount.get("mountPath").asText()), file.getParent());
    // a directory mount (subPath is never updated by the kubelet, and the reload would see nothing)
    assertFalse(mount.has("subPath"));
    JsonNode volume = deployment.at("/spec/template/spec/volumes/0");
    assertEquals(mount.get("name"), volume.get("name"));
    assertEquals(
        one("ConfigMap").at("/metadata/name").asText(), volume.at("/configMap/name").asText());
    assertTrue(one("ConfigMap").get("data").has(file.getFileName().toString()));
  }

  @Test
  void theImageExposesTheContainersPorts() throws IOException {
    String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
    Matcher expose = Pattern.compile("(?m)^EXPOSE (.+)$").matcher(dockerfile);
    assertTrue(expose.find(), "EXPOSE");
    Set<Integer> exposed = new TreeSet<>();
    for (String port : expose.group(1).trim().split("\\s+")) {
      exposed.add(Integer.parseInt(port));
    }
    assertEquals(new TreeSet<>(containerPorts().values()), exposed);
    // the runtime stage runs the launcher on a JDK with the AOT cache (25+)
    Matcher runtime = Pattern.compile("(?m)^FROM eclipse-temurin:(\\d+)-jre$").matcher(dockerfile);
    assertTrue(runtime.find() && Integer.parseInt(runtime.group(1)) >= 25, "a JDK 25+ runtime");
    assertTrue(
        dockerfile.contains("\"/app/bin/mcp-supervisor\"]"), "the launcher is the entrypoint");
  }

  /** The container's ports by name. */
  private static Map<String, Integer> containerPorts() {
    Map<String, Integer> ports = new LinkedHashMap<>();
    container
        .get("ports")
        .forEach(port -> ports.put(port.get("name").asText(), port.get("containerPort").asInt()));
    return ports;
  }

  /**
   * The ConfigMap's file with its {@code ${VAR}}s resolved from the container's env only (a
   * variable it does not set fails here, as the start would): dummies for values from the pod and
   * the Secret, long enough for tokens and secrets.
   */
  private static Config resolvedConfigMap() {
    Map<String, String> env = new HashMap<>();
    container
        .get("env")
        .forEach(
            variable -> {
              String name = variable.get("name").asText();
              if (variable.has("value")) {
                env.put(name, variable.get("value").asText());
              } else if ("status.podIP"
                  .equals(variable.at("/valueFrom/fieldRef/fieldPath").asText())) {
                env.put(name, POD_IP);
              } else {
                env.put(name, (name + "-dummy-value-").repeat(4));
              }
            });
    String text = one("ConfigMap").at("/data/gateway.conf").asText();
    return ConfigFactory.parseString(text).resolveWith(ConfigFactory.parseMap(env));
  }

  /** The file as the loader reads one. */
  private static String rendered(Config resolved) {
    return resolved.root().render(ConfigRenderOptions.concise());
  }

  /** The {@code -D} settings the container's JVM options set. */
  private static Config jvmSettings() {
    Map<String, String> properties = new HashMap<>();
    container
        .get("env")
        .forEach(
            variable -> {
              String name = variable.get("name").asText();
              if (name.equals("JDK_JAVA_OPTIONS") || name.equals("JAVA_OPTS")) {
                for (String option : variable.get("value").asText().split("\\s+")) {
                  if (option.startsWith("-D") && option.contains("=")) {
                    int equals = option.indexOf('=');
                    properties.put(option.substring(2, equals), option.substring(equals + 1));
                  }
                }
              }
            });
    return ConfigFactory.parseMap(properties);
  }

  private static long preStopSleepSeconds() {
    JsonNode preStop = container.at("/lifecycle/preStop");
    if (preStop.has("sleep")) {
      return preStop.at("/sleep/seconds").asLong();
    }
    List<String> command = new ArrayList<>();
    preStop.at("/exec/command").forEach(word -> command.add(word.asText()));
    assertEquals("sleep", command.get(0), "preStop: " + command);
    return Long.parseLong(command.get(1));
  }

  /** The status code of a GET with this Host header (the JDK's HTTP client will not set Host). */
  private static int status(int port, String path, String host) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      Matcher status = Pattern.compile("^HTTP/1\\.1 (\\d{3}) ").matcher(answer);
      assertTrue(status.find(), answer);
      return Integer.parseInt(status.group(1));
    }
  }

  private static JsonNode one(String kind) {
    List<JsonNode> found =
        manifests.stream().filter(manifest -> kind.equals(manifest.path("kind").asText())).toList();
    assertEquals(1, found.size(), "one " + kind);
    return found.get(0);
  }

  private static Set<String> texts(JsonNode array) {
    Set<String> texts = new TreeSet<>();
    array.forEach(text -> texts.add(text.asText()));
    return texts;
  }
}
