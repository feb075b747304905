package dev.mcpsupervisor.app.chaos;

import java.util.List;

/**
 * Something the runner did to the upstream: "kill" (SIGKILL), "restart" (an HTTP upstream back on
 * its port), "sigstop", "sigcont".
 *
 * @param atMillis since the load started
 * @param inFlight calls under way when it happened
 */
record ChaosEvent(long atMillis, String kind, List<Long> pids, int inFlight) {

  static final String KILL = "kill";
  static final String RESTART = "restart";
  static final String SIGSTOP = "sigstop";
  static final String SIGCONT = "sigcont";

  ChaosEvent {
    pids = List.copyOf(pids);
  }
}
