package dev.mcpsupervisor.upstream;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stdio servers run in process groups of their own, and the JVM knows every one that lives: a
 * server that dies on its own cannot leave its children behind (they stay in its group, which is
 * ended after it), and a JVM that must exit at once (a second termination signal) can still kill
 * every tree it started.
 *
 * <p>A group is made with util-linux {@code setsid}: started from the JVM the child is no group
 * leader, so setsid makes a new session and execs the server in place (same pid: the pid is the
 * group id). Without setsid on the machine, servers run in the JVM's group as before, and only
 * their descendants found while they live are ended.
 *
 * <p>The registry is static on purpose: processes belong to the JVM, not to an actor, and the
 * last-resort kill runs in a signal handler where no actor can be asked.
 */
public final class ProcessGroups {

  private static final Logger log = LoggerFactory.getLogger(ProcessGroups.class);
  private static final Optional<String> SETSID = executable("setsid");
  private static final Optional<String> KILL = executable("kill");

  /** Leaders of the live groups (and, without setsid, the live servers). */
  private static final Set<ProcessHandle> LIVE = ConcurrentHashMap.newKeySet();

  /** Where process tables are walked and kill runs: never on the caller's (an actor's) thread. */
  static final ExecutorService WORKERS = DaemonThreads.cachedPool("mcp-process-groups");

  private ProcessGroups() {}

  /** Whether servers get a group of their own here. */
  static boolean available() {
    return SETSID.isPresent() && KILL.isPresent();
  }

  /**
   * The command that starts {@code command} as the leader of a new process group (unchanged without
   * setsid).
   */
  static List<String> inOwnGroup(List<String> command) {
    if (!available()) {
      return command;
    }
    List<String> wrapped = new ArrayList<>(command.size() + 1);
    wrapped.add(SETSID.get());
    wrapped.addAll(command);
    return wrapped;
  }

  static void started(ProcessHandle leader) {
    LIVE.add(leader);
  }

  /** The server and everything left in its group are gone. */
  static void ended(ProcessHandle leader) {
    LIVE.remove(leader);
  }

  /**
   * Ends what is left in the group of a server that exited on its own (its children, re-parented
   * but still in its group): TERM, then KILL after {@code grace}.
   */
  static void endOrphans(ProcessHandle leader, Duration grace) {
    WORKERS.execute(
        () -> {
          if (signal(leader, "TERM")) {
            log.debug("ended the children left behind by exited process {}", leader.pid());
            CompletableFuture.delayedExecutor(grace.toMillis(), TimeUnit.MILLISECONDS, WORKERS)
                .execute(
                    () -> {
                      signal(leader, "KILL");
                      ended(leader);
                    });
          } else {
            ended(leader);
          }
        });
  }

  /**
   * Sends {@code signal} (TERM, KILL) to every process of the group led by {@code leader}; false if
   * none was there.
   */
  static boolean signal(ProcessHandle leader, String signal) {
    if (!available()) {
      return false;
    }
    try {
      Process kill =
          new ProcessBuilder(KILL.get(), "-" + signal, "--", "-" + leader.pid())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      return kill.waitFor(2, TimeUnit.SECONDS) && kill.exitValue() == 0;
    } catch (IOException e) {
      log.debug("kill -{} -{} failed: {}", signal, leader.pid(), e.toString());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * KILLs every live stdio server tree at once, without a grace period: for a JVM that exits now.
   * Answers how many servers were live.
   */
  public static int killAllNow() {
    List<ProcessHandle> leaders = List.copyOf(LIVE);
    for (ProcessHandle leader : leaders) {
      leader.descendants().forEach(ProcessHandle::destroyForcibly);
      signal(leader, "KILL");
      leader.destroyForcibly();
    }
    return leaders.size();
  }

  private static Optional<String> executable(String name) {
    String path = System.getenv("PATH");
    List<String> directories = new ArrayList<>(List.of("/usr/bin", "/bin"));
    if (path != null) {
      directories.addAll(0, List.of(path.split(File.pathSeparator)));
    }
    return directories.stream()
        .map(directory -> new File(directory, name))
        .filter(file -> file.isFile() && file.canExecute())
        .map(File::getAbsolutePath)
        .findFirst();
  }
}
