package dev.mcpsupervisor.protocol;

/**
 * Marks a message that may cross from one gateway node to another in a cluster. Pekko serializes
 * such a message with Jackson CBOR ({@code pekko-serialization-jackson}, bound to this interface
 * when {@code gateway.cluster} is set); a message without it is local to its node and is never
 * serialized (Java serialization stays off). Implementations are immutable records of plain data
 * and {@code ActorRef}s, which Pekko's Jackson module writes as their paths.
 */
public interface CrossNode {}
