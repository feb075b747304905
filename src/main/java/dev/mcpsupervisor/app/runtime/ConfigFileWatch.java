package dev.mcpsupervisor.app.runtime;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
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
 * file, two with the {@code gateway.identitySecrets} file of the configuration in force, which is
 * watched the same way.
 */
final class ConfigFileWatch {

  interface Command {}

  private enum Look implements Command {
    INSTANCE
  }

  private record Reloaded(String digest) implements Command {}

  private final Supplier<List<Path>> files;
  private final Supplier<CompletionStage<?>> reload;
  private final ActorContext<Command> context;

  private ConfigFileWatch(
      Supplier<List<Path>> files,
      Supplier<CompletionStage<?>> reload,
      ActorContext<Command> context) {
    this.files = files;
    this.reload = reload;
    this.context = context;
  }

  /**
   * Looks at the {@code files} of each look (the configuration file, and the secrets file of the
   * configuration in force) every {@code interval}; {@code reload} is asked for each settled
   * change, one at a time. The contents it watches for changes are those of now, read here.
   */
  static Behavior<Command> create(
      Supplier<List<Path>> files, Duration interval, Supplier<CompletionStage<?>> reload) {
    FileChange started = FileChange.startedWith(digest(files.get()));
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> {
                  timers.startTimerWithFixedDelay(Look.INSTANCE, interval);
                  ConfigFileWatch watch = new ConfigFileWatch(files, reload, context);
                  return watch.watching(started);
                }));
  }

  private Behavior<Command> watching(FileChange change) {
    return Behaviors.receive(Command.class)
        .onMessageEquals(
            Look.INSTANCE,
            () -> {
              String now = digest(files.get());
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
   * The SHA-256 of the files' contents, each length-prefixed, or null when one cannot be read now.
   * Read on the actor's thread: a configuration file is a few kilobytes, in the page cache after
   * the first look.
   */
  static String digest(List<Path> files) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (Path file : files) {
        byte[] contents = Files.readAllBytes(file);
        digest.update(ByteBuffer.allocate(Integer.BYTES).putInt(contents.length).array());
        digest.update(contents);
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (IOException e) {
      return null;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
