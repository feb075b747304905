package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import org.junit.jupiter.api.Test;

/**
 * The Java API never reports an unconfirmed operation as done: a snapshot, release or releaseAll
 * the supervisor does not answer fails, so that a check such as "no leases left" cannot pass
 * because nobody answered.
 */
class SupervisorApiFailureTest {

  @Test
  void snapshotReleaseAndReleaseAllFailWhenTheSupervisorCannotAnswer() {
    TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"));
    await(test.supervisor.acquire("run", "alpha"));
    await(test.supervisor.shutdown());

    for (Throwable failure :
        new Throwable[] {
          TestSupervisor.awaitFailure(test.supervisor.snapshot()),
          TestSupervisor.awaitFailure(test.supervisor.release("run", "alpha")),
          TestSupervisor.awaitFailure(test.supervisor.releaseAll("run"))
        }) {
      SupervisorException error = assertInstanceOf(SupervisorException.class, failure);
      assertEquals(JsonRpcErrorCodes.SHUTTING_DOWN, error.error().code(), error.error().message());
    }
  }

  @Test
  void releaseCompletesOnlyOnceTheLeaseIsGone() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("run", "alpha"));
      assertEquals(1, test.onlyKey().leases().size());
      await(test.supervisor.release("run", "alpha"));
      assertEquals(0, test.onlyKey().leases().size(), "the lease is gone when release completes");
      await(
          test.supervisor.releaseAll(
              "run")); // idempotent: nothing left to release is still a confirmed release
    }
  }
}
