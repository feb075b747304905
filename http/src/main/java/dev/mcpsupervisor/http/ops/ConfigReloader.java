package dev.mcpsupervisor.http.ops;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.ConfigChange;
import dev.mcpsupervisor.protocol.config.ConfigException;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads the gateway's configuration file ({@code POST /admin/reload}, SIGHUP) and applies it
 * whole or not at all: a file that does not load, or that changes what cannot change live ({@link
 * LiveChanges}), changes nothing; else the supervisor is reconfigured server by server. Every
 * outcome is logged and listed among the supervision events; none shows a setting's value. Reloads
 * run one at a time, in the order asked.
 */
public final class ConfigReloader {

  private static final Logger log = LoggerFactory.getLogger(ConfigReloader.class);

  /** Reads the configuration as the gateway was started with it (the file, then the flags). */
  @FunctionalInterface
  public interface Source {
    /**
     * @throws ConfigException naming the file, the field and the problem
     */
    ConfigLoader.Loaded read();
  }

  /** The configuration in force: its fingerprint, and when it was loaded. */
  public record Loaded(String fingerprint, Instant at) {}

  /**
   * @param status {@code reloaded}, {@code invalid} (the file does not load), {@code refused} (it
   *     changes what needs a restart), {@code unavailable} (no file to read) or {@code failed} (the
   *     supervisor did not confirm: it is shutting down)
   * @param change what changed, for {@code reloaded} only
   */
  public record Outcome(String status, String message, ConfigChange change, Loaded loaded) {}

  /** The fingerprint shown for a configuration that was not read from a file. */
  public static final String BUILT_IN = "built-in";

  private final Source source;
  private final SessionSupervisor supervisor;
  private final GatewayMetrics metrics;
  private final AtomicReference<Loaded> loaded;

  /** Told every applied configuration and its change (the gateway's routes and sessions). */
  private final List<BiConsumer<SupervisorConfig, ConfigChange>> listeners =
      new CopyOnWriteArrayList<>();

  /** The last reload asked for: the next one starts when it is done. */
  private CompletableFuture<Outcome> last = CompletableFuture.completedFuture(null);

  /**
   * @param source null when there is no file to re-read (a built-in configuration)
   * @param fingerprint the fingerprint of the configuration the supervisor started with
   */
  public ConfigReloader(
      Source source, SessionSupervisor supervisor, GatewayMetrics metrics, String fingerprint) {
    this.source = source;
    this.supervisor = supervisor;
    this.metrics = metrics;
    this.loaded = new AtomicReference<>(new Loaded(fingerprint, Instant.now()));
    metrics.configLoaded(fingerprint);
  }

  /**
   * {@code listener} hears every configuration applied from now on, with what it changed, after the
   * supervisor took it, in the order applied.
   */
  public void onApplied(BiConsumer<SupervisorConfig, ConfigChange> listener) {
    listeners.add(listener);
  }

  public Loaded loaded() {
    return loaded.get();
  }

  /** Re-reads and applies the file; {@code by}: who asked (for the log and the event list). */
  public synchronized CompletionStage<Outcome> reload(String by) {
    // off the thread that completed the previous one (it may be an actor's): this reads a file
    last = last.handle((previous, ignored) -> null).thenComposeAsync(ignored -> apply(by));
    return last;
  }

  private CompletionStage<Outcome> apply(String by) {
    if (source == null) {
      return done(by, "unavailable", "no configuration file to reload (started without --config)");
    }
    ConfigLoader.Loaded next;
    try {
      next = source.read();
    } catch (ConfigException e) {
      return done(by, "invalid", e.getMessage() + "; the running configuration stays");
    } catch (RuntimeException e) {
      // a check outside the loader's (a record's own): still the file's fault, still nothing done
      return done(by, "invalid", e + "; the running configuration stays");
    }
    List<String> needRestart = LiveChanges.needingRestart(supervisor.config(), next.config());
    if (!needRestart.isEmpty()) {
      return done(
          by,
          "refused",
          String.join(", ", needRestart)
              + " cannot change while running: restart to apply; nothing was changed");
    }
    return supervisor
        .reconfigure(next.config())
        .handle(
            (change, failure) -> {
              if (failure != null) {
                return done(by, "failed", "not applied: " + failure.getMessage()).join();
              }
              Loaded now = new Loaded(next.fingerprint(), Instant.now());
              loaded.set(now);
              metrics.configLoaded(now.fingerprint());
              String message =
                  "configuration "
                      + now.fingerprint()
                      + " loaded: added "
                      + change.added()
                      + ", removed "
                      + change.removed()
                      + ", changed "
                      + change.changed()
                      + ", unchanged "
                      + change.unchanged().size();
              log.info("reload {}: {}", by, message);
              metrics.journal().action("reloaded", "", "", "", message + " (" + by + ")");
              listeners.forEach(listener -> listener.accept(next.config(), change));
              return new Outcome("reloaded", message, change, now);
            });
  }

  private CompletableFuture<Outcome> done(String by, String status, String message) {
    log.warn("reload {} {}: {}", by, status, message);
    metrics.journal().action("reload " + status, "", "", "", message + " (" + by + ")");
    return CompletableFuture.completedFuture(new Outcome(status, message, null, loaded.get()));
  }
}
