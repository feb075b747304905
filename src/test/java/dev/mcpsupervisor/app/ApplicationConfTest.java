package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.stream.SystemMaterializer;
import org.junit.jupiter.api.Test;

/** The application's application.conf, against the libraries' reference.conf under it. */
class ApplicationConfTest {

  private static final String LIBRARY_EXTENSIONS = "pekko.library-extensions";
  private static final String SERIALIZATION =
      "org.apache.pekko.serialization.SerializationExtension$";

  @Test
  void loadsEveryLibraryExtensionAtStartButSerialization() {
    Set<String> reference =
        new HashSet<>(ConfigFactory.defaultReference().getStringList(LIBRARY_EXTENSIONS));
    assertTrue(reference.remove(SERIALIZATION), "Pekko no longer loads serialization at start");
    assertEquals(reference, new HashSet<>(ConfigFactory.load().getStringList(LIBRARY_EXTENSIONS)));
  }

  @Test
  void aLocalActorSystemStartsWithoutSerialization() {
    Config config = ConfigFactory.load();
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "application-conf", config);
    try {
      // ids, not get(system), which would load the extension
      assertTrue(system.classicSystem().hasExtension(SystemMaterializer.lookup()));
      assertFalse(system.classicSystem().hasExtension(SerializationExtension.lookup()));
    } finally {
      system.terminate();
    }
  }
}
