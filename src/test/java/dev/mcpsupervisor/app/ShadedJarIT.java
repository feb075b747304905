package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.app.demo.DemoServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The runnable jar is self-contained: every library's reference.conf merged, a main class, no stale
 * signatures.
 */
class ShadedJarIT {

  @Test
  void mergedReferenceConfHasPekkoPekkoHttpAndOurBlocks() throws IOException {
    Config reference = ConfigFactory.parseString(entry("reference.conf"));
    for (String path :
        List.of(
            "pekko.actor.default-dispatcher",
            "pekko.stream.materializer",
            "pekko.serialization.jackson",
            "pekko.http.server.idle-timeout",
            "pekko.http.client",
            "mcp-supervisor.server-defaults.maxSessions",
            "mcp-supervisor.gateway.port",
            "mcp-supervisor.supervisor.shutdownTimeout")) {
      assertTrue(reference.hasPathOrNull(path), "merged reference.conf lacks " + path);
    }
    assertTrue(entry("version.conf").contains("pekko.version"));
  }

  @Test
  void manifestNamesTheMainClassAndNoSignatureFilesRemain() throws IOException {
    try (JarFile jar = new JarFile(JarProcess.jar().toFile())) {
      assertEquals(
          Main.class.getName(), jar.getManifest().getMainAttributes().getValue("Main-Class"));
      List<String> signatures =
          jar.stream()
              .map(JarEntry::getName)
              .filter(name -> name.matches("META-INF/[^/]+\\.(SF|DSA|RSA|EC)"))
              .toList();
      assertEquals(List.of(), signatures);
      assertNotNull(jar.getEntry(DemoServer.class.getName().replace('.', '/') + ".class"));
    }
  }

  private static String entry(String name) throws IOException {
    try (JarFile jar = new JarFile(JarProcess.jar().toFile())) {
      JarEntry entry = jar.getJarEntry(name);
      assertNotNull(entry, name + " missing from the jar");
      try (InputStream in = jar.getInputStream(entry)) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    }
  }
}
