package dev.mcpsupervisor.app.chaos;

import java.time.Duration;

/** The chaos runner's flags, checked. */
record ChaosSettings(
    int sessions,
    Duration duration,
    Duration interval,
    Duration deadline,
    Duration hang,
    int readOnlyEvery,
    String fixtureClasspath) {}
