package dev.mcpsupervisor.http.access;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.RemoteAddress;
import org.junit.jupiter.api.Test;

/** Who is on this machine: what the admin endpoints without tokens, and the stream quota, ask. */
class AccessControlTest {

  @Test
  void onlyALoopbackAddressIsThisMachine() throws Exception {
    assertTrue(AccessControl.fromLoopback(from("127.0.0.1")));
    assertTrue(AccessControl.fromLoopback(from("::1")));
    assertFalse(AccessControl.fromLoopback(from("10.1.2.3")), "a client on the network");
    assertFalse(AccessControl.fromLoopback(from("192.168.0.7")));
    assertFalse(
        AccessControl.fromLoopback(HttpRequest.create("/admin")), "an unknown address is not");
  }

  private static HttpRequest from(String address) throws Exception {
    return HttpRequest.create("/admin")
        .addAttribute(
            AttributeKeys.remoteAddress,
            RemoteAddress.create(new InetSocketAddress(InetAddress.getByName(address), 40000)));
  }
}
