package dev.mcpsupervisor.benchreport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A chaos run's per-second outcome. Expected input: {@code {"timeline": [{"second": 0, "ok": 120,
 * "failed": 0}, ...], "kills": [12, 30.5]}}. Tolerated: the object nested under {@code "chaos"};
 * {@code "t"} for {@code "second"} (or the entry's index when both are missing); missing counts as
 * 0; each kill as a number or an object with {@code "second"} or {@code "t"}. Everything else in
 * the file is ignored.
 */
public record ChaosTimeline(List<Second> timeline, List<Double> kills) {

  public record Second(double second, long ok, long failed) {}

  public static ChaosTimeline read(Path file) throws IOException {
    return parse(new ObjectMapper().readTree(file.toFile()));
  }

  static ChaosTimeline parse(JsonNode root) {
    JsonNode chaos = root.has("timeline") ? root : root.path("chaos");
    JsonNode timeline = chaos.path("timeline");
    if (!timeline.isArray()) {
      throw new IllegalArgumentException("not a chaos result: no \"timeline\" array");
    }
    List<Second> seconds = new ArrayList<>();
    for (JsonNode entry : timeline) {
      double second = time(entry);
      seconds.add(
          new Second(
              Double.isNaN(second) ? seconds.size() : second,
              entry.path("ok").asLong(0),
              entry.path("failed").asLong(0)));
    }
    List<Double> kills = new ArrayList<>();
    for (JsonNode kill : chaos.path("kills")) {
      double second = kill.isNumber() ? kill.asDouble() : time(kill);
      if (!Double.isNaN(second)) {
        kills.add(second);
      }
    }
    return new ChaosTimeline(List.copyOf(seconds), List.copyOf(kills));
  }

  private static double time(JsonNode entry) {
    JsonNode time = entry.has("second") ? entry.path("second") : entry.path("t");
    return time.isNumber() ? time.asDouble() : Double.NaN;
  }
}
