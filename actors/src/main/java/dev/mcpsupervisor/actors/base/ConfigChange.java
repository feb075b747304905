package dev.mcpsupervisor.actors.base;

import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * What a reconfiguration changes, server by server (names sorted): an added server starts lazily, a
 * removed one's keys drain and stop, a changed one (any field of its {@link ServerConfig}: spec,
 * isolation, limits, filters) gets new key actors while the old ones drain, an unchanged one is
 * left alone.
 */
public record ConfigChange(
    List<String> added, List<String> removed, List<String> changed, List<String> unchanged) {

  public ConfigChange {
    added = List.copyOf(added);
    removed = List.copyOf(removed);
    changed = List.copyOf(changed);
    unchanged = List.copyOf(unchanged);
  }

  /** The servers of {@code before} and {@code after} compared by name, then by whole config. */
  public static ConfigChange between(SupervisorConfig before, SupervisorConfig after) {
    Map<String, ServerConfig> old = before.servers();
    Map<String, ServerConfig> now = after.servers();
    List<String> added = new ArrayList<>();
    List<String> removed = new ArrayList<>();
    List<String> changed = new ArrayList<>();
    List<String> unchanged = new ArrayList<>();
    TreeSet<String> names = new TreeSet<>(old.keySet());
    names.addAll(now.keySet());
    for (String name : names) {
      ServerConfig was = old.get(name);
      ServerConfig is = now.get(name);
      if (was == null) {
        added.add(name);
      } else if (is == null) {
        removed.add(name);
      } else if (Objects.equals(was, is)) {
        unchanged.add(name);
      } else {
        changed.add(name);
      }
    }
    return new ConfigChange(added, removed, changed, unchanged);
  }

  /** The servers whose keys are retired: removed or changed. */
  public List<String> retired() {
    List<String> retired = new ArrayList<>(removed);
    retired.addAll(changed);
    return retired;
  }

  /** Whether the servers callers see (their lists) may differ: anything but all unchanged. */
  public boolean listsMayChange() {
    return !added.isEmpty() || !removed.isEmpty() || !changed.isEmpty();
  }
}
