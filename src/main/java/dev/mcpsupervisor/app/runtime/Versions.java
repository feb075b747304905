package dev.mcpsupervisor.app.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The application's version, written into a resource by Maven's resource filtering at build time.
 */
public final class Versions {

  private static final String RESOURCE = "/dev/mcpsupervisor/app/version.properties";

  private Versions() {}

  public static String application() {
    try (InputStream in = Versions.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE + " (build with Maven)");
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
