package dev.mcpsupervisor.http;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;

/**
 * The supervisor contexts a downstream session's upstream calls go out in: its own (the session
 * id), or, for a server configured {@code isolation: context}, its caller's identity context when
 * it serves a 2026-07-28 request that names a caller ({@link CallerIdentity}). Such a call's tag
 * names this session's actor too, because the identity context's listener ({@link
 * IdentityListener}) is shared by every session serving that caller.
 *
 * @param identity the caller's context, or null
 * @param sessionRef this session's actor as {@code ActorRefResolver} writes it (null without an
 *     identity)
 */
record CallContexts(SessionSupervisor supervisor, String own, String identity, String sessionRef) {

  /** Every call in the session's own context. */
  static CallContexts own(SessionSupervisor supervisor, String own) {
    return new CallContexts(supervisor, own, null, null);
  }

  /** The calls of one downstream request, tagged with {@code tag}. */
  UpstreamCalls calls(String tag) {
    return new UpstreamCalls(this, tag);
  }

  String contextFor(String server) {
    return inIdentity(server) ? identity : own;
  }

  String tagFor(String server, String tag) {
    return inIdentity(server) ? IdentityListener.tag(sessionRef, tag) : tag;
  }

  private boolean inIdentity(String server) {
    if (identity == null) {
      return false;
    }
    ServerConfig config = supervisor.config().servers().get(server);
    return config != null && config.isolation() == Isolation.CONTEXT;
  }
}
