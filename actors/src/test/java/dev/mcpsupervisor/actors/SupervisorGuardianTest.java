package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/**
 * The guardian bootstraps: the router of server keys, and whatever an integration asks it to spawn.
 */
class SupervisorGuardianTest {

  @Test
  void spawnedActorsAreChildrenOfTheGuardianAndAMistakenNameDoesNotStopIt() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      ActorRef<ActorRef<String>> echo =
          await(
              test.supervisor.spawn(
                  Behaviors.<ActorRef<String>>receiveMessage(
                      replyTo -> {
                        replyTo.tell("echo");
                        return Behaviors.same();
                      }),
                  "echo"));
      assertEquals(
          test.supervisor.actorSystem().path(), echo.path().parent(), "a child of the guardian");
      TestProbe<String> probe = TestProbe.create(test.supervisor.actorSystem());
      echo.tell(probe.getRef());
      probe.expectMessage("echo");

      // the same name again: refused, and the supervisor goes on serving
      java.util.concurrent.CompletionStage<ActorRef<Object>> again =
          test.supervisor.spawn(Behaviors.empty(), "echo");
      test.snapshot(); // barrier: the guardian has taken the request
      test.timePasses(java.time.Duration.ofSeconds(61)); // the ask gives up after acquireTimeout
      assertTrue(TestSupervisor.awaitFailure(again) != null);
      assertEquals(null, await(test.supervisor.acquire("run", "alpha")).get("error"));
    }
  }
}
