package dev.mcpsupervisor.actors.cluster;

import com.typesafe.config.Config;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import java.util.ServiceLoader;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Makes a supervisor's actor system a node of a cluster ({@code gateway.cluster}). The {@code
 * mcp-supervisor-cluster} artifact provides it, found with {@link ServiceLoader}: a single node
 * carries no Pekko cluster, remoting or distributed data on its classpath.
 */
public interface ClusterNodes {

  /** The name of a single node's actor system, and the prefix of a cluster node's. */
  String SYSTEM_NAME = "mcp-supervisor";

  /** The actor system's name: the same on every node of the cluster. */
  String systemName(ClusterConfig cluster);

  /**
   * {@code base} with a cluster node's settings over it.
   *
   * @param base the actor system's configuration, with the defaults (reference.conf) in it
   */
  Config actorSystemConfig(ClusterConfig cluster, Config base);

  /** The view of the cluster of {@code system}, an actor system started with the config above. */
  Membership membership(ActorSystem<?> system);

  /**
   * The provider on the classpath. Without one a configured cluster cannot start: an {@link
   * IllegalStateException} that names the artifact to add, before any actor system exists.
   */
  static ClusterNodes load() {
    return ServiceLoader.load(ClusterNodes.class)
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "gateway.cluster is configured but dev.mcpsupervisor:mcp-supervisor-cluster is"
                        + " not on the classpath: add it (the gateway's jar has it), or remove the"
                        + " cluster section to run a single node"));
  }
}
