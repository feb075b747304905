package dev.mcpsupervisor.app.chaos;

/** What the runner does to the upstream. */
enum Scenario {
  /** The stdio upstream processes SIGKILLed every interval. */
  KILL("kill"),
  /**
   * A Streamable HTTP upstream killed every 5 intervals and started again on its port after one.
   */
  HTTP_RESTART("http-restart"),
  /** The stdio upstream SIGSTOPped after one interval, SIGCONTinued after the hang time. */
  HANG("hang");

  private final String flag;

  Scenario(String flag) {
    this.flag = flag;
  }

  String flag() {
    return flag;
  }

  static Scenario of(String flag) {
    for (Scenario scenario : values()) {
      if (scenario.flag.equals(flag)) {
        return scenario;
      }
    }
    throw new IllegalArgumentException(
        "unknown scenario " + flag + " (kill, http-restart, hang or all)");
  }
}
