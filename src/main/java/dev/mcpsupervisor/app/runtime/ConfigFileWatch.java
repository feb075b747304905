package dev.mcpsupervisor.app.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * {@code gateway.watchConfig}: reloads the configuration file when its contents change. It reads
 * the file at a fixed interval and compares digests of its contents ({@link FileChange}), rather
 * than listening to a {@link java.nio.file.WatchService}: the path is followed through its symlinks
 * at every look, so a Kubernetes ConfigMap (whose file is a symlink into a {@code ..data} directory
 * that is swapped whole, the file itself never touched) and an editor that writes a new file and
 * renames it over the old one are both seen, as is a change within the same second of modification
 * time; and no event of another file in the directory wakes it. A look costs one read of a small
 * file.
 */
final class ConfigFileWatch {

  interface Command {}

  private enum Look implements Command {
    INSTANCE
  }

  private record Reloaded(String digest) implements Command {}

  private final Path file;
  private final Supplier<CompletionStage<?>> reload;
  private final ActorContext<Command> context;

  private ConfigFileWatch(
      Path file, Supplier<CompletionStage<?>> reload, ActorContext<Command> context) {
    this.file = file;
    this.reload = reload;
    this.context = context;
  }

  /**
   * Looks at {@code file} every {@code interval}; {@code reload} is asked for each settled change,
   * one at a time. The contents it watches for changes are those of now, read here.
   */
  static Behavior<Command> create(
      Path file, Duration interval, Supplier<CompletionStage<?>> reload) {
    FileChange started = FileChange.startedWith(digest(file));
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> {
                  timers.startTimerWithFixedDelay(Look.INSTANCE, interval);
                  ConfigFileWatch watch = new ConfigFileWatch(file, reload, context);
                  return watch.watching(started);
                }));
  }

  private Behavior<Command> watching(FileChange change) {
    return Behaviors.receive(Command.class)
        .onMessageEquals(
            Look.INSTANCE,
            () -> {
              String now = digest(file);
              if (!change.dueAt(now)) {
                return watching(change.looked(now));
              }
              context.pipeToSelf(reload.get(), (outcome, failure) -> new Reloaded(now));
              return reloading(change);
            })
        .build();
  }

  /** Looks wait until the reload asked for is done. */
  private Behavior<Command> reloading(FileChange change) {
    return Behaviors.receive(Command.class)
        .onMessageEquals(Look.INSTANCE, Behaviors::same)
        .onMessage(Reloaded.class, done -> watching(change.reloadedAt(done.digest())))
        .build();
  }

  /**
   * The SHA-256 of the file's contents, or null when it cannot be read now. Read on the actor's
   * thread: a configuration file is a few kilobytes, in the page cache after the first look.
   */
  static String digest(Path file) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (IOException e) {
      return null;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
